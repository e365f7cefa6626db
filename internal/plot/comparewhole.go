package plot

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"

	"github.com/kvbench/kvbench/internal/results"
)

// compareWholePanels are the whole-workload panels the overlay draws: a
// run's CPU and receive memory are its own figure's to show.
var compareWholePanels = wholePanels[:3]

// compareWholeWorkload overlays the whole workload of dist across runs:
// its p50, p99 and ops/s against the eager threshold, a line per run in
// the run's colour. A run measured without thresholds (a baseline store)
// is a level line across the others' thresholds. Nil when no run
// measured dist at a positive threshold.
func compareWholeWorkload(runs []RunDir, labels []string, dist string) (*Figure, error) {
	perRun := make([][]results.Cell, len(runs))
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, r := range runs {
		all, err := results.WholeCells(r.Run.Cells)
		if err != nil {
			return nil, err
		}
		cells := slices.DeleteFunc(all, func(c results.Cell) bool { return c.Distribution != dist })
		slices.SortFunc(cells, func(a, b results.Cell) int { return cmp.Compare(a.Threshold, b.Threshold) })
		for _, c := range cells {
			if !c.Baseline() && c.Threshold > 0 {
				lo, hi = math.Min(lo, float64(c.Threshold)), math.Max(hi, float64(c.Threshold))
			}
		}
		perRun[i] = cells
	}
	if math.IsInf(lo, 1) {
		return nil, nil
	}
	f := &Figure{Name: "compare-whole-workload-" + distName(dist)}
	for _, wp := range compareWholePanels {
		panel, err := compareWholePanel(wp.series[0], wp, perRun, labels, lo, hi)
		if err != nil {
			return nil, err
		}
		if panel != nil {
			f.Panels = append(f.Panels, panel)
		}
	}
	if len(f.Panels) == 0 {
		return nil, nil
	}
	f.Panels[0].Plot.Title.Text = "whole workload (every op and protocol) vs eager threshold, by run"
	return f, nil
}

// compareWholePanel draws series s of each run's whole cells; nil when
// none has a point.
func compareWholePanel(s wholeSeries, wp wholePanel, perRun [][]results.Cell, labels []string, lo, hi float64) (*Panel, error) {
	lines := make([]plotter.XYs, len(perRun))
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for i, cells := range perRun {
		for _, c := range cells {
			y, ok := s.value(c)
			if !ok || y <= 0 {
				continue
			}
			switch {
			case c.Baseline(): // no threshold: level across the others'
				lines[i] = plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}}
			case c.Threshold > 0:
				lines[i] = append(lines[i], plotter.XY{X: float64(c.Threshold), Y: y})
			default:
				continue
			}
			ylo, yhi = math.Min(ylo, y), math.Max(yhi, y)
		}
	}
	if math.IsInf(ylo, 1) {
		return nil, nil
	}
	ylabel := wp.title
	if s.name != wp.title {
		ylabel = s.name + " " + ylabel // "p50 latency"
	}
	p := newPlot("", "eager threshold (bytes, log2)", ylabel)
	byteAxis(&p.X, lo, hi)
	logAxis(&p.Y, ylo, yhi, wp.format)
	panel := &Panel{Plot: p}
	for i, pts := range lines {
		if len(pts) == 0 {
			continue
		}
		if err := panel.addLine(labels[i], pts, colorAt(i), nil, nil, true); err != nil {
			return nil, err
		}
	}
	return panel, nil
}
