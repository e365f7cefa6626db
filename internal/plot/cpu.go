package plot

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/kvbench/kvbench/internal/results"
)

// cpuSides are the lines a protocol gets in a CPU figure: the client's
// CPU time, or the process's where the server ran inside kvbench, drawn
// solid, and the server's dashed. ok is false where the cell has no such
// figure.
var cpuSides = []struct {
	name string
	dash []vg.Length
	get  func(c *results.CellCPU) (float64, bool)
}{
	{results.CPUScopeClient, dashes[0], func(c *results.CellCPU) (float64, bool) {
		return c.Client.NsPerOp, c.Scope == results.CPUScopeClient
	}},
	{results.CPUScopeProcess, dashes[0], func(c *results.CellCPU) (float64, bool) {
		return c.Client.NsPerOp, c.Scope == results.CPUScopeProcess
	}},
	{"server", dashes[1], func(c *results.CellCPU) (float64, bool) {
		if c.Server == nil {
			return 0, false
		}
		return c.Server.NsPerOp, true
	}},
}

// cpuCells are op's cells with CPU figures and a positive value size, by
// protocol (eager, rendezvous, then any other, sorted), each in size
// order. Where several thresholds ran one protocol at one size the lowest
// threshold's cell is taken, as PhaseSizes does: the protocol decides
// the path an operation takes.
func cpuCells(run *results.Run, op string) (protocols []string, cells map[string][]results.Cell) {
	type key struct {
		size  int
		proto string
	}
	chosen := map[key]results.Cell{}
	for _, c := range run.Cells {
		if c.Op != op || c.CPU == nil || c.ValueSize <= 0 {
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

// cpuLine is one line of a CPU figure and the cells of its points.
type cpuLine struct {
	name  string
	pts   plotter.XYs
	color int
	dash  []vg.Length
	cells []results.Cell
}

// cpuLines are the lines of op's CPU figure, each with at least one
// point a log axis can show.
func cpuLines(run *results.Run, op string) []cpuLine {
	protocols, cells := cpuCells(run, op)
	var lines []cpuLine
	for i, p := range protocols {
		name := p
		if cs := cells[p]; len(cs) > 0 && cs[0].Baseline() {
			name = cs[0].Store // a baseline's one protocol: its store names it
		}
		for _, side := range cpuSides {
			l := cpuLine{name: name + " " + side.name, color: i, dash: side.dash}
			for _, c := range cells[p] {
				if y, ok := side.get(c.CPU); ok && y > 0 && !math.IsInf(y, 0) {
					l.pts = append(l.pts, plotter.XY{X: float64(c.ValueSize), Y: y})
					l.cells = append(l.cells, c)
				}
			}
			if len(l.pts) > 0 {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// CPU plots op's CPU time per operation against value size, eager beside
// rendezvous: one line per protocol (its colour) and side (client or
// process solid, server dashed). A cell's figures are its measure phase's
// over all the phase's operations, so with a mixed workload every op's
// figure shows the same phases. It returns nil when op has no cell with
// CPU figures and a positive value size.
func CPU(run *results.Run, op string) (*Figure, error) {
	lines := cpuLines(run, op)
	if len(lines) == 0 {
		return nil, nil
	}
	lo, hi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for _, pt := range l.pts {
			lo, hi = math.Min(lo, pt.X), math.Max(hi, pt.X)
			ylo, yhi = math.Min(ylo, pt.Y), math.Max(yhi, pt.Y)
		}
	}
	p := newPlot(op+": CPU time per operation vs value size", "value size (bytes, log2)", "CPU time per operation")
	byteAxis(&p.X, lo, hi)
	logAxis(&p.Y, ylo, yhi, durationLabel)
	panel := &Panel{Plot: p}
	for _, l := range lines {
		if err := panel.addLine(l.name, l.pts, colorAt(l.color), l.dash, protocolGlyph(l.cells), true); err != nil {
			return nil, err
		}
	}
	return &Figure{Name: "cpu-" + op, Panels: []*Panel{panel}}, nil
}
