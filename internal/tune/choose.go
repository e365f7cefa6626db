package tune

import (
	"cmp"
	"slices"
)

// summarise sets c's medians by j.
func (j Judge) summarise(c *Candidate) {
	cpu := Judge{Objective: ObjCPU, Side: j.Side}
	c.P50 = median(c.Samples, func(s Sample) float64 { return s.P50 })
	c.P99 = median(c.Samples, func(s Sample) float64 { return s.P99 })
	c.OpsPerSec = median(c.Samples, func(s Sample) float64 { return s.OpsPerSec })
	c.CPU = median(c.Samples, cpu.Value)
	c.Capacity = median(c.Samples, func(s Sample) float64 { return s.Capacity })
	c.Value = median(c.Samples, j.Value)
}

// significantly says a beats b: by the sign test over their rounds at
// j's level or, with a margin (capacity searches too few for the test),
// by a median better than b's by more than the margin.
func (j Judge) significantly(a, b *Candidate) bool {
	if j.Margin > 0 {
		return j.Objective.better(a.Value, b.Value*(1+j.Margin))
	}
	return j.lead(j.pairs(a.Samples, b.Samples)) == 1
}

// choose picks w's threshold among its measured candidates (at least
// one): the best by median, then, among it and those it does not beat
// significantly, the one needing the least memory (lower thresholds
// first) that no candidate beats significantly, else the best. Each
// candidate is then compared with the chosen one. Under a latency goal
// a candidate that met it at no rate cannot be chosen: when none met it,
// w is Unmet and nothing is chosen.
func (j Judge) choose(w *WorkloadResult) {
	var measured []*Candidate
	for i := range w.Candidates {
		if c := &w.Candidates[i]; c.Status == Measured {
			measured = append(measured, c)
		}
	}
	eligible := slices.DeleteFunc(slices.Clone(measured), func(c *Candidate) bool { return j.Objective == ObjCapacity && c.Value <= 0 })
	if len(eligible) == 0 {
		w.Unmet = true
		return
	}
	best := eligible[0]
	for _, c := range eligible[1:] {
		if j.Objective.better(c.Value, best.Value) {
			best = c
		}
	}
	tied := slices.DeleteFunc(slices.Clone(eligible), func(c *Candidate) bool { return c != best && j.significantly(best, c) })
	slices.SortStableFunc(tied, func(a, b *Candidate) int {
		return cmp.Or(cmp.Compare(a.Memory(), b.Memory()), cmp.Compare(a.Threshold, b.Threshold))
	})
	chosen := best
	for _, c := range tied {
		if !slices.ContainsFunc(eligible, func(o *Candidate) bool { return j.significantly(o, c) }) {
			chosen = c
			break
		}
	}
	w.Best, w.Chosen = best.Threshold, chosen.Threshold
	for _, c := range measured {
		j.versus(c, chosen)
	}
}

// versus compares c with the chosen candidate.
func (j Judge) versus(c, chosen *Candidate) {
	if c == chosen {
		c.Versus = VsChosen
		return
	}
	c.Record = j.record(c, chosen)
}

// record is how c compares with other over the rounds they shared.
func (j Judge) record(c, other *Candidate) Record {
	var o Record
	o.Wins, o.Losses, o.P = j.pairs(c.Samples, other.Samples)
	switch {
	case j.significantly(c, other):
		o.Versus = VsBetter
	case j.significantly(other, c):
		o.Versus = VsWorse
	default:
		o.Versus = VsTie
	}
	return o
}
