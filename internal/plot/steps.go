package plot

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
)

// stepsFigure draws f over the measure phase for op (figure.Steps), named
// f.Name-op: on top the level of each of op's cells with the figure, one
// per value size, on a log2 axis; beneath, the cells' shares, a colour
// per line and a dash per cell. It returns nil when op has no such cell.
func stepsFigure(run *results.Run, op string, f figure.Figure, decl figure.Steps) (*Figure, error) {
	cells := figure.FirstOfOp(run.Cells, func(c results.Cell) bool { return c.Op == op && f.Has(c) })
	if len(cells) == 0 {
		return nil, nil
	}
	slices.SortFunc(cells, func(a, b results.Cell) int { return cmp.Compare(a.ValueSize, b.ValueSize) })
	top := newPlot(op+": "+decl.Title+" over the measure phase", "", decl.Title+" (bytes, log2)")
	bottom := newPlot("", "time since start of measure phase", decl.SharesTitle)
	tp, bp := &Panel{Plot: top}, &Panel{Plot: bottom}
	lo, hi, tmax := math.Inf(1), math.Inf(-1), 0.0
	shares := 0 // the bottom panel's lines so far
	for i, c := range cells {
		vals, iv := decl.Level(c)
		pts := steps(vals, iv, c.DurationNs)
		for _, pt := range pts {
			lo, hi, tmax = math.Min(lo, pt.Y), math.Max(hi, pt.Y), math.Max(tmax, pt.X)
		}
		if err := tp.addLine(figure.CellSize(c), pts, colorAt(i), nil, noGlyphs, true); err != nil {
			return nil, err
		}
		for _, s := range decl.Shares(c) {
			name := s.Name
			if len(cells) > 1 {
				name = figure.CellSize(c) + " " + name
			}
			if err := bp.addLine(name, steps(s.Values, iv, c.DurationNs), colorAt(shares), dashes[i%len(dashes)], noGlyphs, true); err != nil {
				return nil, err
			}
			shares++
		}
	}
	if !(lo > 0) {
		return nil, nil // no level a log axis can show
	}
	byteAxis(&top.Y, lo, hi)
	bottom.Y.Min, bottom.Y.Max = 0, 1
	for _, p := range []*Panel{tp, bp} {
		p.Plot.X.Min, p.Plot.X.Max = 0, tmax
		p.Plot.X.Tick.Marker = secondTicks{}
	}
	return &Figure{Name: f.Name + "-" + op, Panels: []*Panel{tp, bp}}, nil
}

// steps are the points of a step line of vals, interval i a flat step
// over [i, i+1) intervals of intervalNs, in seconds, the last cut short
// at the phase's end (durationNs). Intervals whose value is NaN are left
// out.
func steps(vals []float64, intervalNs, durationNs int64) plotter.XYs {
	var pts plotter.XYs
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		start, end := int64(i)*intervalNs, int64(i+1)*intervalNs
		if durationNs > start && durationNs < end {
			end = durationNs
		}
		pts = append(pts, plotter.XY{X: float64(start) / 1e9, Y: v}, plotter.XY{X: float64(end) / 1e9, Y: v})
	}
	return pts
}
