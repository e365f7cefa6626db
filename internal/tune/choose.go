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
	c.Value = median(c.Samples, j.Value)
}

// significantly says a beats b by the sign test over their rounds at
// j's level.
func (j Judge) significantly(a, b *Candidate) bool {
	return j.lead(j.pairs(a.Samples, b.Samples)) == 1
}

// choose picks w's threshold among its measured candidates (at least
// one): the best by median, then, among it and those it does not beat
// significantly, the one needing the least memory (lower thresholds
// first) that no candidate beats significantly, else the best. Each
// candidate is then compared with the chosen one.
func (j Judge) choose(w *WorkloadResult) {
	var measured []*Candidate
	for i := range w.Candidates {
		if c := &w.Candidates[i]; c.Status == Measured {
			measured = append(measured, c)
		}
	}
	best := measured[0]
	for _, c := range measured[1:] {
		if j.Objective.better(c.Value, best.Value) {
			best = c
		}
	}
	tied := slices.DeleteFunc(slices.Clone(measured), func(c *Candidate) bool { return c != best && j.significantly(best, c) })
	slices.SortStableFunc(tied, func(a, b *Candidate) int {
		return cmp.Or(cmp.Compare(a.Memory(), b.Memory()), cmp.Compare(a.Threshold, b.Threshold))
	})
	chosen := best
	for _, c := range tied {
		if !slices.ContainsFunc(measured, func(o *Candidate) bool { return j.significantly(o, c) }) {
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
	c.Wins, c.Losses, c.P = j.pairs(c.Samples, chosen.Samples)
	c.Versus = [...]Versus{VsWorse, VsTie, VsBetter}[j.lead(c.Wins, c.Losses, c.P)+1]
}
