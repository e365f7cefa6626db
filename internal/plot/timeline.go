package plot

import (
	"fmt"
	"math"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/plot/plotter"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// Interval is one interval histogram's contribution to the timeline.
type Interval struct {
	Start, Length float64 // seconds; Start is relative to the first interval
	Ops           float64 // ops/s over the interval
	P99           float64 // ns
}

// Intervals turns interval histograms into rates and p99s. Intervals with
// no length are skipped: they carry no rate. So is a partial interval
// (usually the last, cut short by the end of the phase) shorter than a
// quarter of the longest: its few operations make a rate and a p99 too
// noisy to draw.
func Intervals(hs []*hdrhistogram.Histogram) []Interval {
	var out []Interval
	if len(hs) == 0 {
		return nil
	}
	t0 := hs[0].StartTimeMs()
	var longest int64
	for _, h := range hs {
		t0 = min(t0, h.StartTimeMs())
		longest = max(longest, h.EndTimeMs()-h.StartTimeMs())
	}
	for _, h := range hs {
		ms := h.EndTimeMs() - h.StartTimeMs()
		if ms <= 0 || 4*ms < longest {
			continue
		}
		length := float64(ms) / 1000
		iv := Interval{Start: float64(h.StartTimeMs()-t0) / 1000, Length: length,
			Ops: float64(h.TotalCount()) / length}
		if h.TotalCount() > 0 {
			iv.P99 = float64(h.ValueAtQuantile(99))
		}
		out = append(out, iv)
	}
	return out
}

// Timeline plots throughput (top) and p99 (bottom) over time for op at one
// value size, one line per cell, from the cells' interval logs under dir.
// Cells whose log cannot be read are reported in skipped, not fatal.
func Timeline(run *results.Run, dir, op string, size int) (fig *Figure, skipped []error, err error) {
	var cells []results.Cell
	for _, c := range run.Cells {
		if c.Op == op && c.ValueSize == size {
			cells = append(cells, c)
		}
	}
	slices.SortFunc(cells, cellOrder)
	top := newPlot(fmt.Sprintf("%s %s: throughput and p99 over time", op, units.Bytes(int64(size))), "", "throughput (ops/s)")
	bottom := newPlot("", "time since start of measure phase", "p99 latency")
	tp, lp := &Panel{Plot: top}, &Panel{Plot: bottom}
	type line struct {
		name     string
		ops, p99 plotter.XYs
	}
	var lines []line
	var rates, lats []float64
	tmax := 0.0
	for _, c := range cells {
		hs, err := results.CellIntervals(dir, c)
		if err != nil {
			skipped = append(skipped, fmt.Errorf("%s: %w", c.Name(), err))
			continue
		}
		ivs := Intervals(hs)
		if len(ivs) == 0 {
			continue
		}
		l := line{name: cellLine(c)}
		for _, iv := range ivs {
			// Each interval is a flat step over the time it covers, so
			// intervals of unequal length read correctly.
			end := iv.Start + iv.Length
			tmax = math.Max(tmax, end)
			l.ops = append(l.ops, plotter.XY{X: iv.Start, Y: iv.Ops}, plotter.XY{X: end, Y: iv.Ops})
			l.p99 = append(l.p99, plotter.XY{X: iv.Start, Y: iv.P99}, plotter.XY{X: end, Y: iv.P99})
			if iv.Ops > 0 {
				rates = append(rates, iv.Ops)
			}
			if iv.P99 > 0 {
				lats = append(lats, iv.P99)
			}
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 || len(rates) == 0 {
		return nil, skipped, nil
	}
	for _, p := range []*Panel{tp, lp} {
		p.Plot.X.Min, p.Plot.X.Max = 0, tmax
		p.Plot.X.Tick.Marker = secondTicks{}
	}
	logAxis(&top.Y, slices.Min(rates), slices.Max(rates), rateLabel)
	if len(lats) > 0 {
		logAxis(&bottom.Y, slices.Min(lats), slices.Max(lats), durationLabel)
	}
	for i, l := range lines {
		if err := tp.addLine(l.name, l.ops, colorAt(i), nil, noGlyphs, true); err != nil {
			return nil, skipped, err
		}
		// The panels share their series: one legend, by the top panel.
		if err := lp.addLine(l.name, l.p99, colorAt(i), nil, noGlyphs, false); err != nil {
			return nil, skipped, err
		}
	}
	return &Figure{Name: "timeline-" + op + "-" + sizeName(size), Panels: []*Panel{tp, lp}}, skipped, nil
}
