package tune

import (
	"fmt"
	"math"
	"slices"

	"github.com/kvbench/kvbench/rdmakv"
)

// ProfileFile is the file of a tune directory that holds Profile's
// profile, beside tune.json.
const ProfileFile = "profile.json"

// Profile is the run's thresholds as a profile for rdmakv.WithProfile
// (profile.json), nil when no load found one: at each load, each op
// with a crossover gets a rule with its own threshold (on a
// distribution, both ops the chosen candidate), over the band of load
// around it (bands). Loads with the same requests in flight but
// different rates share a band, which gets an op's rule only where they
// agree. Where no rule applies the run's recommendation does, else
// rdmakv's default. workload names what was tuned.
func (r *Result) Profile(workload string) *rdmakv.Profile {
	bands := bands(r.Loads)
	ordered := slices.SortedFunc(slices.Values(bands), func(a, b [2]int) int { return a[0] - b[0] })
	var rules []rdmakv.ProfileRule
	for _, b := range slices.Compact(ordered) {
		for _, op := range []rdmakv.Op{rdmakv.OpGet, rdmakv.OpSet} {
			if rule, ok := r.bandRule(bands, b, op); ok {
				rules = append(rules, rule)
			}
		}
	}
	if len(rules) == 0 {
		return nil
	}
	def := rdmakv.DefaultEagerThreshold
	if r.Recommended > 0 {
		def = r.Recommended
	}
	return &rdmakv.Profile{Version: rdmakv.ProfileVersion, Source: r.source(workload), Default: def, Rules: rules}
}

// source says what made the profile: the workload, the objective and the
// build.
func (r *Result) source(workload string) string {
	by := "by " + string(r.Objective)
	if r.Config.SLO != nil {
		by = "by capacity at " + r.Config.SLO.String()
	}
	return fmt.Sprintf("kvbench tune %s, %s, %s", workload, by, r.Build)
}

// bandRule is op's rule over band b, whose loads are those with bands[i]
// == b: their threshold when each has one and they agree.
func (r *Result) bandRule(bands [][2]int, b [2]int, op rdmakv.Op) (rdmakv.ProfileRule, bool) {
	rule := rdmakv.ProfileRule{Op: op.String(), InFlight: b, Threshold: -1, Sizes: [2]int{math.MaxInt, 0}}
	for i := range r.Loads {
		if bands[i] != b {
			continue
		}
		t, sizes, ok := r.Loads[i].threshold(op, r.Config.Workload)
		if !ok || (rule.Threshold >= 0 && t != rule.Threshold) {
			return rdmakv.ProfileRule{}, false
		}
		rule.Threshold = t
		rule.Sizes = [2]int{min(rule.Sizes[0], sizes[0]), max(rule.Sizes[1], sizes[1])}
	}
	return rule, true
}

// threshold is op's threshold at the load and the value sizes measured
// for it: on a distribution w the chosen candidate, over sizes up to the
// largest w draws; else op's own crossover, over its points' sizes.
func (l *LoadResult) threshold(op rdmakv.Op, w *Workload) (t int, sizes [2]int, ok bool) {
	if wr := l.Workload; wr != nil {
		ok := !wr.Unmet && slices.ContainsFunc(wr.Candidates, func(c Candidate) bool {
			return c.Threshold == wr.Chosen && c.Status == Measured
		})
		return wr.Chosen, [2]int{0, w.MaxSize}, ok
	}
	i := slices.IndexFunc(l.Ops, func(o OpResult) bool { return o.Op == op })
	if i < 0 || !l.Ops[i].Found {
		return 0, sizes, false
	}
	o := &l.Ops[i]
	return o.Threshold, [2]int{o.Points[0].Size, o.Points[len(o.Points)-1].Size}, true
}

// bands are the loads' bands of requests in flight (connections x
// depth), in their order. One level of load holds every load, [0, 0];
// several split at the geometric midpoint of adjacent levels, the
// lowest band from 1 and the highest unbounded above (hi 0).
func bands(loads []LoadResult) [][2]int {
	levels := make([]int, len(loads))
	for i, l := range loads {
		levels[i] = l.Load.Connections * l.Load.Depth
	}
	sorted := slices.Compact(slices.Sorted(slices.Values(levels)))
	out := make([][2]int, len(loads))
	if len(sorted) == 1 {
		return out
	}
	for i, n := range levels {
		k, _ := slices.BinarySearch(sorted, n)
		lo, hi := 1, 0
		if k > 0 {
			lo = split(sorted[k-1], n) + 1
		}
		if k < len(sorted)-1 {
			hi = split(n, sorted[k+1])
		}
		out[i] = [2]int{lo, hi}
	}
	return out
}

// split is the last load of a's band next to b's, a < b: the geometric
// midpoint, rounded down, which lies in [a, b).
func split(a, b int) int { return int(math.Sqrt(float64(a) * float64(b))) }
