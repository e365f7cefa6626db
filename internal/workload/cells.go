package workload

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Cell is one (value size, eager threshold) combination; a run measures
// every cell with the workload's mix, phases and load. A workload with
// values.distribution has one cell per threshold, whose values' sizes
// follow the distribution: its ValueSize is then the distribution's mean
// (Distribution.MeanSize), which names it.
type Cell struct {
	Index        int    // position in Cells()
	ValueSize    int64  // bytes
	Threshold    int64  // eager threshold, bytes
	Distribution string // values.distribution's Spec; "" for a fixed size
}

// Name identifies the cell in file names: "v4KiB-t1KiB".
func (c Cell) Name() string {
	return "v" + Size(c.ValueSize).String() + "-t" + Size(c.Threshold).String()
}

// Cells lists every value size with every threshold, thresholds ascending
// in the outer loop and value sizes ascending inside. A cell's Index is its
// place in this grid, by which a run numbers the cell's random streams
// whatever order (Order) the cells run in.
func (w *Workload) Cells() []Cell {
	sizes, ths := w.ValueSizes(), w.SortedThresholds()
	var dist string
	if d := w.Values.Distribution; d != nil && d.law != nil {
		sizes, dist = []int64{d.MeanSize()}, d.Spec
	}
	if t := w.Trace; t != nil {
		sizes, dist = []int64{0}, t.Spec() // the size is the replayed sets' mean
	}
	cells := make([]Cell, 0, len(sizes)*len(ths))
	for _, t := range ths {
		for _, s := range sizes {
			cells = append(cells, Cell{Index: len(cells), ValueSize: s, Threshold: t, Distribution: dist})
		}
	}
	return cells
}

// SortedThresholds is Thresholds ascending, in bytes.
func (w *Workload) SortedThresholds() []int64 {
	if get, set, ok := w.ProfileThresholds(); ok {
		return []int64{int64(max(get, set))} // what the clients ask the server for
	}
	out := make([]int64, len(w.Thresholds))
	for i, t := range w.Thresholds {
		out[i] = int64(t)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ValueSizes merges values.sizes and the sizes values.range produces,
// sorted ascending without duplicates: none for a workload with
// values.distribution.
func (w *Workload) ValueSizes() []int64 {
	var out []int64
	for _, s := range w.Values.Sizes {
		out = append(out, int64(s))
	}
	if r := w.Values.Range; r != nil {
		out = append(out, rangeSizes(r, MaxValueSizes+1)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// parseStep reads a range step: "x2" (multiply by a factor > 1) or a size
// added each time ("4KiB", "4096").
func parseStep(step string) (factor float64, add int64, err error) {
	s := strings.TrimSpace(step)
	if s == "" {
		return 0, 0, fmt.Errorf("missing: want a factor like \"x2\" or a size like \"4KiB\"")
	}
	if f, ok := strings.CutPrefix(s, "x"); ok {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 1 {
			return 0, 0, fmt.Errorf("%q: a factor must be a number above 1, like \"x2\"", step)
		}
		return v, 0, nil
	}
	n, err := ParseSize(s)
	if err != nil {
		return 0, 0, fmt.Errorf("%q: want a factor like \"x2\" or a size like \"4KiB\": %v", step, err)
	}
	if n < 1 {
		return 0, 0, fmt.Errorf("%q: an additive step must be at least 1 byte", step)
	}
	return 0, int64(n), nil
}

// rangeSizes lists min, then each next size (min*factor rounded up, or
// min+step) while it does not exceed max; max itself is included only if a
// step lands on it. At most limit sizes are returned; nothing for an
// invalid range.
func rangeSizes(r *Range, limit int) []int64 {
	factor, add, err := parseStep(r.Step)
	if err != nil || r.Min < 1 || r.Max < r.Min {
		return nil
	}
	var out []int64
	for v := int64(r.Min); v <= int64(r.Max) && len(out) < limit; {
		out = append(out, v)
		var next float64
		if add > 0 {
			next = float64(v) + float64(add)
		} else {
			// Ceil keeps the sequence strictly increasing for any factor > 1.
			next = math.Ceil(float64(v) * factor)
		}
		if next > float64(r.Max) {
			break
		}
		v = int64(next)
	}
	return out
}

// Rates lists an open-loop ramp's rates: start, then stepping by step
// towards end without passing it; end is included only if a step lands on
// it (within 1e-9).
func (r *Ramp) Rates() []float64 {
	if r == nil || r.Step <= 0 || r.Start <= 0 || r.End <= 0 {
		return nil
	}
	dir := 1.0
	if r.End < r.Start {
		dir = -1
	}
	n := int(math.Floor(math.Abs(r.End-r.Start)/r.Step + 1e-9))
	n = min(n, MaxRampSteps)
	out := make([]float64, 0, n+1)
	for i := 0; i <= n; i++ {
		out = append(out, r.Start+dir*float64(i)*r.Step)
	}
	return out
}

// MeasureDuration is the measure phase's length when it is time-bounded:
// the phase duration, or for a ramp the number of rates times the step
// duration. Zero means the phase is bounded by operations instead.
func (w *Workload) MeasureDuration() time.Duration {
	if r := w.Load.Ramp; r != nil {
		return time.Duration(len(r.Rates())) * time.Duration(r.StepDuration)
	}
	return time.Duration(w.Phases.Measure.Duration)
}
