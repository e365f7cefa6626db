package tune

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/units"
)

// Result is a tuning run.
type Result struct {
	Config Config `json:"config"`
	// Objective is what the protocols were compared by.
	Objective Objective `json:"objective"`
	// Build names the program that measured (set by the caller).
	Build Build `json:"build"`
	// Loads hold the comparison at each load, in Config.Loads order.
	Loads []LoadResult `json:"loads"`
	// Recommended is the eager threshold every load agrees on (0 when
	// none was found or the loads disagree), and Explanation says how it
	// was chosen, per load where they differ.
	Recommended int      `json:"recommended_threshold"`
	Explanation []string `json:"explanation"`
}

// Build identifies the measuring program: its version, git revision and
// the rdmakv protocol version it speaks.
type Build struct {
	Version  string `json:"kvbench_version,omitempty"`
	Revision string `json:"git_revision,omitempty"`
	Protocol int    `json:"protocol_version,omitempty"`
}

// String is "kvbench devel 1a2b3c4, protocol 5".
func (b Build) String() string {
	s := strings.TrimSpace("kvbench " + b.Version + " " + b.Revision)
	if b.Protocol > 0 {
		s += fmt.Sprintf(", protocol %d", b.Protocol)
	}
	return s
}

// LoadResult is the comparison at one load.
type LoadResult struct {
	Load Load       `json:"load"`
	Ops  []OpResult `json:"ops"`
	// Recommended is the eager threshold for this load (0 when no op
	// found a crossover), and Explanation says how it was chosen.
	Recommended int      `json:"recommended_threshold"`
	Explanation []string `json:"explanation"`
}

// recommend sets the load's threshold: the smallest per-op threshold.
func (r *LoadResult) recommend(c *Config) {
	found := slices.DeleteFunc(slices.Clone(r.Ops), func(o OpResult) bool { return !o.Found })
	if len(found) == 0 {
		within := "within the measured sizes"
		if slices.ContainsFunc(r.Ops, func(o OpResult) bool { return len(o.EagerUnmeasured) > 0 }) {
			within = "among the sizes where both protocols were measured"
		}
		r.Explanation = append(r.Explanation, "no crossover was found "+within+", so no threshold is recommended:")
		for _, o := range r.Ops {
			r.Explanation = append(r.Explanation, o.verdictLine())
		}
		r.explainUnmeasured()
		return
	}
	best := slices.MinFunc(found, func(a, b OpResult) int { return a.Threshold - b.Threshold })
	r.Recommended = best.Threshold
	r.Explanation = append(r.Explanation, fmt.Sprintf(
		"recommended eager threshold: %s (%d bytes), the smallest per-op crossover (%s, rendezvous %s from %s), as a power of two",
		units.Bytes(int64(r.Recommended)), r.Recommended, best.Op, c.judge().adj(), units.Bytes(int64(best.Crossover))))
	if c.KeySize > 0 {
		r.Explanation = append(r.Explanation, fmt.Sprintf(
			"the threshold counts key plus value bytes: with %d-byte keys, values of up to %d bytes go eager",
			c.KeySize, r.Recommended-c.KeySize-1))
	}
	for _, o := range r.Ops {
		switch {
		case !o.Found:
			r.Explanation = append(r.Explanation, o.verdictLine())
		case o.Threshold > r.Recommended:
			r.Explanation = append(r.Explanation, o.sharedCost(c, r.Recommended))
		default:
			r.Explanation = append(r.Explanation, fmt.Sprintf("%s: %s", o.Op, o.Verdict))
		}
		if o.Decider != "" {
			r.Explanation = append(r.Explanation, o.Decider)
		}
	}
	r.explainUnmeasured()
}

// verdictLine is "op: verdict; suggestion".
func (o *OpResult) verdictLine() string {
	line := fmt.Sprintf("%s: %s", o.Op, o.Verdict)
	if o.Suggestion != "" {
		line += "; " + o.Suggestion
	}
	return line
}

// sharedCost says what the shared threshold, below o's own, costs o at
// worst: it sends o rendezvous early.
func (o *OpResult) sharedCost(c *Config, shared int) string {
	worst := 0.0
	for _, p := range o.Points {
		if p.Size+c.KeySize >= shared && p.Size < o.Crossover && p.Ratio > 0 && p.Ratio < 1 {
			worst = math.Max(worst, 1/p.Ratio-1)
		}
	}
	line := fmt.Sprintf("%s alone would use %s (rendezvous %s from %s)", o.Op,
		units.Bytes(int64(o.Threshold)), c.judge().adj(), units.Bytes(int64(o.Crossover)))
	if worst > 0 {
		loss := fmt.Sprintf("%.0f%% higher %s", 100*worst, c.objectiveName())
		if c.objective().higher() {
			loss = fmt.Sprintf("%.0f%% lower %s", 100*(1-1/(1+worst)), c.objectiveName())
		}
		line += fmt.Sprintf("; between %s and %s it pays up to %s under the shared threshold",
			units.Bytes(int64(shared)), units.Bytes(int64(o.Crossover)), loss)
	}
	return line
}

// explainUnmeasured adds, per op, the sizes eager could not be measured at.
func (r *LoadResult) explainUnmeasured() {
	for _, o := range r.Ops {
		if n := o.UnmeasuredNote(); n != "" {
			r.Explanation = append(r.Explanation, n)
		}
	}
}

// summarise sets the run's recommendation from its loads': theirs when
// there is one load or all agree, else none, with each load's.
func (r *Result) summarise() {
	c := &r.Config
	if n := stats.SignTestMinN(c.alpha()); c.Repeats < n && c.judge().margin == 0 {
		r.Explanation = append(r.Explanation, fmt.Sprintf(
			"note: with %d repeats no size can show a significant winner at alpha %g; use --repeats %d or more",
			c.Repeats, c.alpha(), n))
	}
	if r.processCPU() {
		r.Explanation = append(r.Explanation,
			"note: the server runs inside kvbench, so CPU per op is the whole process's, both sides together; give a server for each side's own")
	}
	if len(r.Loads) == 1 {
		r.Recommended = r.Loads[0].Recommended
		r.Explanation = append(r.Explanation, r.Loads[0].Explanation...)
		return
	}
	for _, l := range r.Loads {
		r.Explanation = append(r.Explanation, "at "+l.Load.String()+":")
		for _, e := range l.Explanation {
			r.Explanation = append(r.Explanation, "  "+e)
		}
	}
	if agreed := r.Loads[0].Recommended; !slices.ContainsFunc(r.Loads, func(l LoadResult) bool { return l.Recommended != agreed }) {
		r.Recommended = agreed
		if agreed > 0 {
			r.Explanation = append(r.Explanation, fmt.Sprintf("every load agrees: eager threshold %s", units.Bytes(int64(agreed))))
		}
		return
	}
	r.Explanation = append(r.Explanation, "the loads disagree: "+r.disagreement()+"; use the threshold of the load you run at")
}

// disagreement is "4KiB at 1 connection, 32KiB from 16 connections": the
// loads in order, runs of one threshold merged, a run reaching the last
// load said "from" its first.
func (r *Result) disagreement() string {
	var parts []string
	for i := 0; i < len(r.Loads); {
		j := i
		for j+1 < len(r.Loads) && r.Loads[j+1].Recommended == r.Loads[i].Recommended {
			j++
		}
		what := "none"
		if t := r.Loads[i].Recommended; t > 0 {
			what = units.Bytes(int64(t))
		}
		switch {
		case j == len(r.Loads)-1 && i > 0:
			parts = append(parts, fmt.Sprintf("%s from %s", what, r.Loads[i].Load))
		case i == j:
			parts = append(parts, fmt.Sprintf("%s at %s", what, r.Loads[i].Load))
		default:
			parts = append(parts, fmt.Sprintf("%s at %s to %s", what, r.Loads[i].Load, r.Loads[j].Load))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// processCPU says CPU decided and a sample had one figure for the process.
func (r *Result) processCPU() bool {
	if r.Objective != ObjCPU {
		return false
	}
	for _, l := range r.Loads {
		for _, o := range l.Ops {
			for _, p := range o.Points {
				if slices.ContainsFunc(p.Rendezvous, func(s Sample) bool { return s.CPUScope == results.CPUScopeProcess }) {
					return true
				}
			}
		}
	}
	return false
}
