package plot

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// wholeSeries is one line of a whole-workload panel: a value of each
// threshold's whole cell, ok false where it has none.
type wholeSeries struct {
	name   string
	dashed bool
	value  func(results.Cell) (float64, bool)
}

// wholePanel is one panel of the whole-workload figure.
type wholePanel struct {
	title  string
	format func(float64) string
	series []wholeSeries
	// best, when set, is the threshold the panel marks as the best: the
	// lowest (or, with most, the highest) value of its first series.
	best string
	most bool
	// bytes puts the y axis on powers of two, as sizes are (format unused).
	bytes bool
}

var wholePanels = []wholePanel{
	{title: "latency", format: durationLabel, best: "p50", series: []wholeSeries{
		{name: "p50", value: func(c results.Cell) (float64, bool) { return float64(c.Latency.P50), true }},
	}},
	{title: "latency", format: durationLabel, best: "p99", series: []wholeSeries{
		{name: "p99", dashed: true, value: func(c results.Cell) (float64, bool) { return float64(c.Latency.P99), true }},
	}},
	{title: "ops/s", format: rateLabel, best: "ops/s", most: true, series: []wholeSeries{
		{name: "ops/s", value: func(c results.Cell) (float64, bool) { return c.ThroughputOps, true }},
	}},
	{title: "CPU per op", format: durationLabel, series: []wholeSeries{
		{name: results.CPUScopeClient, value: clientCPU(results.CPUScopeClient)},
		{name: results.CPUScopeProcess, value: clientCPU(results.CPUScopeProcess)},
		{name: "server", dashed: true, value: func(c results.Cell) (float64, bool) {
			return cpuOf(c, func(c *results.CellCPU) *results.CPUTime { return c.Server })
		}},
	}},
	{title: "receive memory (verbs)", bytes: true, series: []wholeSeries{
		{name: "server", value: func(c results.Cell) (float64, bool) { return rmemOf(c, true) }},
		{name: "clients", dashed: true, value: func(c results.Cell) (float64, bool) { return rmemOf(c, false) }},
	}},
}

// clientCPU is the client's CPU time per operation where the cell's
// scope is scope (the process's, server included, in process scope).
func clientCPU(scope string) func(results.Cell) (float64, bool) {
	return func(c results.Cell) (float64, bool) {
		if c.CPU == nil || c.CPU.Scope != scope {
			return 0, false
		}
		return c.CPU.Client.NsPerOp, true
	}
}

func cpuOf(c results.Cell, t func(*results.CellCPU) *results.CPUTime) (float64, bool) {
	if c.CPU == nil || t(c.CPU) == nil {
		return 0, false
	}
	return t(c.CPU).NsPerOp, true
}

func rmemOf(c results.Cell, server bool) (float64, bool) {
	switch {
	case c.ReceiveMemory == nil:
		return 0, false
	case server:
		return float64(c.ReceiveMemory.Server), true
	}
	return float64(c.ReceiveMemory.Client), true
}

// WholeWorkload draws the answer of a threshold sweep of a mixed
// workload: the whole workload's p50 and p99 (every op and protocol of a
// threshold as one, results.WholeCells), its ops/s, its CPU time per
// operation and its registered receive memory against the threshold,
// panels stacked on one x axis, the best threshold by p50, by p99 and by
// ops/s marked. Panels without data (CPU, receive memory) are left out.
// It is named whole-workload-dist; nil when dist has no whole cell.
func WholeWorkload(run *results.Run, dist string) (*Figure, error) {
	all, err := results.WholeCells(run.Cells)
	if err != nil {
		return nil, err
	}
	all = slices.DeleteFunc(all, func(c results.Cell) bool { return c.Distribution != dist })
	// A policy's cell (adaptive, a profile) has no place on the threshold
	// axis: it is a level line across it.
	policies := slices.DeleteFunc(slices.Clone(all), func(c results.Cell) bool { return c.Policy == "" })
	cells := slices.DeleteFunc(all, func(c results.Cell) bool { return c.Policy != "" || c.Threshold <= 0 })
	if len(cells) == 0 {
		return nil, nil
	}
	slices.SortFunc(cells, func(a, b results.Cell) int { return cmp.Compare(a.Threshold, b.Threshold) })
	lo, hi := float64(cells[0].Threshold), float64(cells[len(cells)-1].Threshold)
	f := &Figure{Name: "whole-workload-" + distName(dist)}
	for _, wp := range wholePanels {
		panel, err := wholeWorkloadPanel(wp, cells, policies, lo, hi)
		if err != nil {
			return nil, err
		}
		if panel != nil {
			f.Panels = append(f.Panels, panel)
		}
	}
	f.Panels[0].Plot.Title.Text = "whole workload (every op and protocol) vs eager threshold"
	return f, nil
}

// wholeWorkloadPanel draws wp's series over cells, and its first series'
// value of each policy's cell level from lo to hi; nil when none has a
// point.
func wholeWorkloadPanel(wp wholePanel, cells, policies []results.Cell, lo, hi float64) (*Panel, error) {
	pts := make([]plotter.XYs, len(wp.series))
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for i, s := range wp.series {
		for _, c := range cells {
			if y, ok := s.value(c); ok && y > 0 {
				pts[i] = append(pts[i], plotter.XY{X: float64(c.Threshold), Y: y})
				ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
			}
		}
	}
	if math.IsInf(ylo, 1) {
		return nil, nil
	}
	// Each policy's level, read once: it sets the axis and is drawn.
	type level struct {
		name string
		pts  plotter.XYs
	}
	var levels []level
	for _, c := range policies {
		if y, ok := wp.series[0].value(c); ok && y > 0 {
			levels = append(levels, level{c.Policy + " " + wp.series[0].name, plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}}})
			ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
		}
	}
	p := newPlot("", "eager threshold (bytes, log2)", wp.title)
	byteAxis(&p.X, lo, hi)
	if wp.bytes {
		byteAxis(&p.Y, ylo, yhi)
	} else {
		logAxis(&p.Y, ylo, yhi, wp.format)
	}
	panel := &Panel{Plot: p}
	for i, s := range wp.series {
		dash := dashes[0]
		if s.dashed {
			dash = dashes[1]
		}
		if err := panel.addLine(s.name, pts[i], colorAt(i), dash, nil, true); err != nil {
			return nil, err
		}
	}
	for j, l := range levels {
		if err := panel.addLine(l.name, l.pts, colorAt(len(wp.series)+1+j), dashes[2], nil, true); err != nil {
			return nil, err
		}
	}
	if wp.best != "" && len(pts[0]) > 0 {
		x := bestX(pts[0], wp.most)
		panel.addMarker(x, "best "+wp.best+": "+units.Bytes(int64(x)), colorAt(len(wp.series)))
	}
	return panel, nil
}

// bestX is the x of the lowest y of pts (the highest with most), the
// first of equals: the smallest threshold, which costs the least memory.
func bestX(pts plotter.XYs, most bool) float64 {
	best := 0
	for i, pt := range pts {
		if (most && pt.Y > pts[best].Y) || (!most && pt.Y < pts[best].Y) {
			best = i
		}
	}
	return pts[best].X
}
