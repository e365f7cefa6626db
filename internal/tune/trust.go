package tune

import (
	"encoding/json"
	"iter"
	"slices"

	"github.com/kvbench/kvbench/internal/results"
)

// Trusted reports whether every check of s passed, as a run's cell is
// trusted (results.Cell.Trusted). A sample with no checks, from a tune
// saved before samples kept them, is trusted: nothing says otherwise.
func (s Sample) Trusted() bool { return results.TrustedChecks(s.Checks, true) }

// TrustedFor reports whether s can be trusted for a tune whose answer
// rests on the tail (Config.Tail) or not: a p50 tune does not need the
// p99 a short measurement cannot bound (results.CheckTailPrecision).
func (s Sample) TrustedFor(tail bool) bool { return results.TrustedChecks(s.Checks, tail) }

// Tail says whether the tune's answer rests on a tail percentile: a p99
// objective or a capacity under a p99 goal.
func (c Config) Tail() bool { return c.SLO != nil || c.Objective == ObjP99 }

// FailedChecks are the names of s's failed checks, in order.
func (s Sample) FailedChecks() []string {
	var out []string
	for _, k := range s.Checks {
		if !k.Pass {
			out = append(out, k.Name)
		}
	}
	return out
}

// MarshalJSON writes s with its verdict beside its checks, "trusted" and
// the names of the failed ones, so that a reader of tune.json need not
// scan each check to know which measurements to use. Both are derived
// from Checks, and left out when s has none.
func (s Sample) MarshalJSON() ([]byte, error) {
	type plain Sample // without this method
	doc := struct {
		plain
		Trusted *bool    `json:"trusted,omitempty"`
		Failed  []string `json:"failed_checks,omitempty"`
	}{plain: plain(s)}
	if len(s.Checks) > 0 {
		t := s.Trusted()
		doc.Trusted, doc.Failed = &t, s.FailedChecks()
	}
	return json.Marshal(doc)
}

// Untrusted counts the point's measurements of the two protocols it
// compares that failed a check the tune's answer needs (TrustedFor): its
// winner stands on them.
func (p Point) Untrusted(tail bool) int {
	n := 0
	for _, s := range slices.Concat(p.Eager, p.Rendezvous) {
		if !s.TrustedFor(tail) {
			n++
		}
	}
	return n
}

// Samples are every measurement of r: at each load, the whole workload's
// at each candidate and under the adaptive policy, then each op's, by
// size, eager's, rendezvous's and the adaptive policy's.
func (r *Result) Samples() iter.Seq[Sample] {
	return func(yield func(Sample) bool) {
		for _, l := range r.Loads {
			var groups [][]Sample
			if w := l.Workload; w != nil {
				for _, c := range w.Rotation() {
					groups = append(groups, c.Samples)
				}
			}
			for _, o := range l.Ops {
				for _, p := range o.Points {
					groups = append(groups, p.Eager, p.Rendezvous)
					if a := p.Adaptive; a != nil {
						groups = append(groups, a.Samples)
					}
				}
			}
			for _, s := range slices.Concat(groups...) {
				if !yield(s) {
					return
				}
			}
		}
	}
}

// Trust tallies a tune's measurements by their checks.
type Trust struct {
	// Checked counts the measurements that carry checks, Passed those of
	// them whose every check passed.
	Checked, Passed int
	// Failed counts, by check name, the measurements that failed it.
	Failed map[string]int
}

// Trust tallies r's measurements by their checks (Samples): Passed counts
// those the tune's answer can trust (Sample.TrustedFor), Failed every
// failed check, tail_precision too.
func (r *Result) Trust() Trust {
	t := Trust{Failed: map[string]int{}}
	for s := range r.Samples() {
		if len(s.Checks) == 0 {
			continue
		}
		t.Checked++
		if s.TrustedFor(r.Config.Tail()) {
			t.Passed++
		}
		for _, name := range slices.Compact(s.FailedChecks()) {
			t.Failed[name]++
		}
	}
	return t
}
