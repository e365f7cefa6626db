package plot

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
)

// figureCells are op's cells that have f and a positive value size, by
// protocol (eager, rendezvous, then any other, sorted), each in size
// order. Where several thresholds ran one protocol at one size the lowest
// threshold's cell is taken, as PhaseSizes does: the protocol decides
// the path an operation takes.
func figureCells(run *results.Run, op string, f figure.Figure) (protocols []string, cells map[string][]results.Cell) {
	type key struct {
		size  int
		proto string
	}
	chosen := map[key]results.Cell{}
	for _, c := range run.Cells {
		if c.Op != op || !f.Has(c) || c.ValueSize <= 0 {
			continue
		}
		k := key{c.ValueSize, c.Protocol}
		if prev, ok := chosen[k]; !ok || c.Threshold < prev.Threshold {
			chosen[k] = c
		}
	}
	cells = map[string][]results.Cell{}
	for k, c := range chosen {
		cells[k.proto] = append(cells[k.proto], c)
	}
	for p, cs := range cells {
		slices.SortFunc(cs, func(a, b results.Cell) int { return cmp.Compare(a.ValueSize, b.ValueSize) })
		protocols = append(protocols, p)
	}
	rank := func(p string) int { return cmp.Or(slices.Index([]string{"eager", "rendezvous"}, p)+1, 3) }
	slices.SortFunc(protocols, func(a, b string) int { return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b)) })
	return protocols, cells
}

// line is one line of a Lines figure and the cells of its points.
type line struct {
	name  string
	pts   plotter.XYs
	color int
	dash  []vg.Length
	cells []results.Cell
}

// lines are the lines of f's figure of op, each with at least one point a
// log axis can show.
func lines(run *results.Run, op string, f figure.Figure, decl figure.Lines) []line {
	protocols, cells := figureCells(run, op, f)
	var out []line
	for i, p := range protocols {
		name := p
		if cs := cells[p]; len(cs) > 0 && cs[0].Baseline() {
			name = cs[0].Store // a baseline's one protocol: its store names it
		}
		for _, s := range decl.Series {
			l := line{name: name + " " + s.Name, color: i, dash: dashes[0]}
			if s.Dashed {
				l.dash = dashes[1]
			}
			for _, c := range cells[p] {
				if y, ok := s.Value(c); ok && y > 0 && !math.IsInf(y, 0) {
					l.pts = append(l.pts, plotter.XY{X: float64(c.ValueSize), Y: y})
					l.cells = append(l.cells, c)
				}
			}
			if len(l.pts) > 0 {
				out = append(out, l)
			}
		}
	}
	return out
}

// lineFigure plots f against value size for op, eager beside rendezvous
// (figure.Lines): one line per protocol (its colour) and series (solid or
// dashed), named f.Name-op. It returns nil when op has no cell with the
// figure and a positive value size.
func lineFigure(run *results.Run, op string, f figure.Figure, decl figure.Lines) (*Figure, error) {
	ls := lines(run, op, f, decl)
	if len(ls) == 0 {
		return nil, nil
	}
	lo, hi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, l := range ls {
		for _, pt := range l.pts {
			lo, hi = math.Min(lo, pt.X), math.Max(hi, pt.X)
			ylo, yhi = math.Min(ylo, pt.Y), math.Max(yhi, pt.Y)
		}
	}
	p := newPlot(op+": "+decl.Title+" vs value size", "value size (bytes, log2)", decl.Title)
	byteAxis(&p.X, lo, hi)
	logAxis(&p.Y, ylo, yhi, f.Text)
	panel := &Panel{Plot: p}
	for _, l := range ls {
		if err := panel.addLine(l.name, l.pts, colorAt(l.color), l.dash, protocolGlyph(l.cells), true); err != nil {
			return nil, err
		}
	}
	return &Figure{Name: f.Name + "-" + op, Panels: []*Panel{panel}}, nil
}

// FigureOf is the figure of op that f's declaration asks plot for
// (figure.Plot); nil when it asks for none or op's cells have nothing
// to draw. The CPU figure, for one, plots op's CPU time per operation
// against value size, client or process solid and server dashed: a
// cell's CPU figures are its measure phase's over all the phase's
// operations, so with a mixed workload every op's figure shows the same
// phases.
func FigureOf(run *results.Run, op string, f figure.Figure) (*Figure, error) {
	switch decl := f.Plot.(type) {
	case figure.Lines:
		return lineFigure(run, op, f, decl)
	case figure.Bars:
		return barFigure(op, f.Name, decl, barSizes(run, op, f, decl))
	case figure.Steps:
		return stepsFigure(run, op, f, decl)
	}
	return nil, nil
}
