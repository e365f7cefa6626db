package results

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// StepCells splits a ramped open-loop cell (Load.RampRatesOps) into one
// cell per step of its ramp, from its interval log in run directory dir,
// so that each rate the ramp held has figures of its own. An interval
// belongs to the step its middle falls in, counting from the first
// interval's start; the phase's intervals are much shorter than a step, so
// only an interval that straddles a step's edge is placed whole on one
// side. Each step cell keeps c's identity, has the step's rate as
// Load.RateOps and no ramp, and the count, duration, throughput and
// latency of its intervals. Errors, bytes and the phase's other figures
// (CPU, receive memory, ...) are not logged by interval and are left out.
// A cell without a ramp gives none.
func StepCells(dir string, c Cell) ([]Cell, error) {
	rates := c.Load.RampRatesOps
	if len(rates) == 0 || c.Load.RampStepNs <= 0 {
		return nil, nil
	}
	intervals, err := CellIntervals(dir, c)
	if err != nil {
		return nil, err
	}
	hists := make([]*hdrhistogram.Histogram, len(rates))
	spans := make([]int64, len(rates)) // ms of intervals in each step
	for _, h := range intervals {
		k := stepOf(h, intervals[0].StartTimeMs(), c.Load.RampStepNs, len(rates))
		if hists[k] == nil {
			hists[k] = NewHistogram()
		}
		if dropped := hists[k].Merge(h); dropped != 0 {
			return nil, fmt.Errorf("%s: %d values outside the histogram range", c.Hlog, dropped)
		}
		spans[k] += h.EndTimeMs() - h.StartTimeMs()
	}
	var out []Cell
	for k, h := range hists {
		if h == nil {
			continue
		}
		s, err := stepCell(c, rates[k], h, spans[k])
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// stepOf is the step, of steps of stepNs from origin (ms), that h's
// middle falls in.
func stepOf(h *hdrhistogram.Histogram, origin, stepNs int64, steps int) int {
	mid := (h.StartTimeMs()+h.EndTimeMs())/2 - origin
	return min(max(int(mid*1e6/stepNs), 0), steps-1)
}

// stepCell is c at one step of its ramp: rate, the step's merged
// intervals h, spanning ms.
func stepCell(c Cell, rate float64, h *hdrhistogram.Histogram, ms int64) (Cell, error) {
	enc, err := EncodeHistogram(h)
	if err != nil {
		return Cell{}, fmt.Errorf("%s: %w", c.Name(), err)
	}
	s := Cell{Op: c.Op, ValueSize: c.ValueSize, Distribution: c.Distribution, Threshold: c.Threshold, Policy: c.Policy,
		Protocol: c.Protocol, Store: c.Store, Count: h.TotalCount(), Errors: map[string]int64{}, DurationNs: ms * 1e6,
		Latency: Summarize(h), Histogram: enc, Load: c.Load, IntervalNs: c.IntervalNs}
	s.Load.RateOps, s.Load.RampRatesOps, s.Load.RampStepNs = rate, nil, 0
	if ms > 0 {
		s.ThroughputOps = float64(s.Count) / (float64(ms) / 1e3)
	}
	return s, nil
}

// RampSteps are the steps of cells' ramps, recorded in run directory dir
// (StepCells): per step, in order, the step cells of every ramped cell in
// cells' order, then each threshold's whole workload at that step
// (WholeCells) for a mixed run.
func RampSteps(dir string, cells []Cell) ([][]Cell, error) {
	var byStep [][]Cell
	for _, c := range cells {
		steps, err := StepCells(dir, c)
		if err != nil {
			return nil, err
		}
		for k, s := range steps {
			if k >= len(byStep) {
				byStep = append(byStep, make([][]Cell, k+1-len(byStep))...)
			}
			byStep[k] = append(byStep[k], s)
		}
	}
	for k, step := range byStep {
		whole, err := WholeCells(step)
		if err != nil {
			return nil, err
		}
		byStep[k] = append(step, whole...)
	}
	return byStep, nil
}
