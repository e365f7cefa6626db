package tune

import (
	"context"
	"errors"
	"fmt"

	"github.com/kvbench/kvbench/internal/units"
)

// whole measures the workload at every candidate threshold at l,
// Repeats rounds, each round running every candidate once in an order
// rotated by one from the round before, so that drift lands on every
// candidate alike; then it chooses. Under a latency goal each candidate's
// run in a round is a capacity search, the candidates' searches stepped
// side by side in the round's order. Candidates above the memory limit
// are not measured, nor, after its first refusal, one the target
// refuses. The adaptive policy, when compared, is measured in each
// round's rotation like a candidate, and compared with the choice after
// it.
func (r *runner) whole(ctx context.Context, l Load) (*WorkloadResult, error) {
	w := r.cfg.Workload
	res := &WorkloadResult{Candidates: candidates(w, l), Adaptive: adaptive(w, l)}
	if !anyMeasured(res) {
		return nil, fmt.Errorf("max memory %s rules out every candidate threshold at %s: the smallest needs %s",
			units.Bytes(w.MaxMemory), l, units.Bytes(res.Candidates[0].Memory()))
	}
	for rep := range r.cfg.Repeats {
		if err := r.round(ctx, res, l, rep); err != nil {
			return nil, err
		}
	}
	for _, c := range res.Rotation() {
		if c.Status == Measured {
			r.j.summarise(c)
		}
	}
	if !anyMeasured(res) {
		return nil, fmt.Errorf("the target refused every candidate threshold (first %s)", res.Refusal)
	}
	r.j.choose(res)
	r.j.compareAdaptive(res)
	return res, nil
}

// Rotation is what a round measures, in the first round's order: the
// candidates, ascending, then the adaptive policy when it is compared,
// one more entry rotated with them so that it shares their drift.
func (w *WorkloadResult) Rotation() []*Candidate {
	var out []*Candidate
	for i := range w.Candidates {
		out = append(out, &w.Candidates[i])
	}
	if w.Adaptive != nil {
		out = append(out, &w.Adaptive.Candidate)
	}
	return out
}

// round runs res's candidates, and the adaptive policy, once each at l,
// in the order rotated by rep: a measurement each, or under a latency
// goal a capacity search each, started by that measurement.
func (r *runner) round(ctx context.Context, res *WorkloadResult, l Load, rep int) error {
	var runs []*searchRun
	var searched []*Candidate
	all := res.Rotation()
	for i := range all {
		c := all[(i+rep)%len(all)]
		req := Request{Whole: true, Threshold: c.Threshold, Load: l}
		s, ok, err := r.measureCandidate(ctx, res, c, req)
		switch {
		case err != nil:
			return err
		case !ok:
		case r.cfg.SLO == nil:
			c.Samples = append(c.Samples, s)
		default:
			runs, searched = append(runs, r.newSearchRun(req, s)), append(searched, c)
		}
	}
	if err := r.runSearches(ctx, runs); err != nil {
		return err
	}
	for i, sr := range runs {
		searched[i].Samples = append(searched[i].Samples, sr.sample())
	}
	return nil
}

// measureCandidate measures c by req, unless it is not to be measured;
// ok says it was. A refusal marks c refused, the first kept in res.
func (r *runner) measureCandidate(ctx context.Context, res *WorkloadResult, c *Candidate, req Request) (s Sample, ok bool, err error) {
	if c.Status == Refused {
		r.tick(req) // counted in the total, as if measured
	}
	if c.Status != Measured {
		return Sample{}, false, nil
	}
	s, err = r.measure(ctx, req)
	switch {
	case errors.Is(err, ErrUnsupported):
		c.Status, c.Samples = Refused, nil
		if res.Refusal == "" && c.Threshold != AdaptiveThreshold {
			res.Refusal = fmt.Sprintf("at %s: %s", c.Name(), unsupportedReason(err))
		}
		return Sample{}, false, nil
	case err != nil:
		return Sample{}, false, err
	}
	return s, true, nil
}

// candidates are w's thresholds at l with their memory, those above the
// memory limit ruled out.
func candidates(w *Workload, l Load) []Candidate {
	var out []Candidate
	for _, t := range w.Thresholds {
		c := candidate(w, l, t)
		if w.ruledOut(l, t) {
			c.Status = RuledOut
		}
		out = append(out, c)
	}
	return out
}

// candidate is threshold t at l, to be measured, with its memory.
func candidate(w *Workload, l Load, t int) Candidate {
	c := Candidate{Threshold: t, Status: Measured}
	if m, ok := w.memory(l, t); ok {
		c.ServerMemory, c.ClientMemory, c.MemoryKnown = m.Server, m.Client, true
	}
	return c
}

// measuredCandidates counts the candidates w measures at l.
func measuredCandidates(w *Workload, l Load) int {
	n := 0
	for _, c := range candidates(w, l) {
		if c.Status == Measured {
			n++
		}
	}
	return n
}

func anyMeasured(w *WorkloadResult) bool {
	for _, c := range w.Candidates {
		if c.Status == Measured {
			return true
		}
	}
	return false
}
