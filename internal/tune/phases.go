package tune

import (
	"slices"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/stats"
)

// medianPhases is, per phase, the median of the repetitions' p50s (nil
// when no repetition recorded phases).
func medianPhases(ss []Sample) map[string]float64 {
	var out map[string]float64
	for _, name := range results.PhaseNames {
		var v []float64
		for _, s := range ss {
			if p, ok := s.Phases[name]; ok {
				v = append(v, p)
			}
		}
		if len(v) == 0 {
			continue
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[name] = stats.Median(v)
	}
	return out
}

// lead is, per phase, how much longer eager spends in it than rendezvous
// at p (phase p50 medians; a phase one protocol lacks counts as 0).
func lead(p Point) map[string]float64 {
	d := map[string]float64{}
	for name, v := range p.EagerPhases {
		d[name] += v
	}
	for name, v := range p.RdvPhases {
		d[name] -= v
	}
	return d
}

// decidingPhase names the phase that decides o's crossover: the one whose
// eager-minus-rendezvous difference grows most from the size below the
// crossover to the crossover, tipping the balance to rendezvous. Empty
// without a crossover or without phases on both sides.
func (o *OpResult) decidingPhase() string {
	if !o.Found {
		return ""
	}
	below, at := o.Point(o.Below), o.Point(o.Crossover)
	if below == nil || at == nil || len(below.EagerPhases) == 0 || len(at.RdvPhases) == 0 {
		return ""
	}
	lb, la := lead(*below), lead(*at)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range la {
			if !yield(n) {
				return
			}
		}
	})
	best, shift := "", 0.0
	for _, n := range names {
		if s := la[n] - lb[n]; best == "" || s > shift {
			best, shift = n, s
		}
	}
	if shift <= 0 {
		return ""
	}
	return best
}

// Point is o's point at size, nil when none.
func (o *OpResult) Point(size int) *Point {
	for i := range o.Points {
		if o.Points[i].Size == size {
			return &o.Points[i]
		}
	}
	return nil
}
