package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// group is the cells of one op drawn as one line: one threshold, and one
// protocol too when the run measured both protocols at the same size.
type group struct {
	threshold int
	protocol  string // empty when the line spans both protocols
	cells     []results.Cell
}

// name is the line's legend entry: "t=4KiB", "t=4KiB eager", or for a
// baseline store, whose threshold means nothing, its name ("redis"; with
// the protocol when its cells split by protocol, "redis unknown").
func (g group) name() string {
	if len(g.cells) > 0 && g.cells[0].Baseline() {
		if g.protocol != "" {
			return g.cells[0].Store + " " + g.protocol
		}
		return g.cells[0].Store
	}
	s := "t=" + units.Bytes(int64(g.threshold))
	if len(g.cells) > 0 && g.cells[0].Policy != "" {
		s = g.cells[0].Policy
	}
	if g.protocol != "" {
		s += " " + g.protocol
	}
	return s
}

// cellLine names the line of one cell: "t=4KiB eager", or "redis" for a
// baseline store's.
func cellLine(c results.Cell) string {
	switch {
	case c.Baseline():
		return c.Store
	case c.Policy != "":
		return c.Policy + " " + c.Protocol
	}
	return "t=" + units.Bytes(int64(c.Threshold)) + " " + c.Protocol
}

// Ops lists the operations present in run, sorted.
func Ops(run *results.Run) []string {
	var ops []string
	for _, c := range run.Cells {
		if !slices.Contains(ops, c.Op) {
			ops = append(ops, c.Op)
		}
	}
	slices.Sort(ops)
	return ops
}

// groups splits op's cells into lines, ordered by threshold then protocol,
// each sorted by value size.
func groups(run *results.Run, op string) []group {
	byT := map[int][]results.Cell{}
	for _, c := range run.Cells {
		if c.Op == op {
			byT[c.Threshold] = append(byT[c.Threshold], c)
		}
	}
	var out []group
	for t, cells := range byT {
		sizes := map[int]bool{}
		split := false
		for _, c := range cells {
			split = split || sizes[c.ValueSize]
			sizes[c.ValueSize] = true
		}
		if !split {
			out = append(out, group{threshold: t, cells: cells})
			continue
		}
		byP := map[string][]results.Cell{}
		for _, c := range cells {
			byP[c.Protocol] = append(byP[c.Protocol], c)
		}
		for p, cs := range byP {
			out = append(out, group{threshold: t, protocol: p, cells: cs})
		}
	}
	for _, g := range out {
		slices.SortFunc(g.cells, func(a, b results.Cell) int { return cmp.Compare(a.ValueSize, b.ValueSize) })
	}
	slices.SortFunc(out, func(a, b group) int {
		return cmp.Or(cmp.Compare(a.threshold, b.threshold), cmp.Compare(a.protocol, b.protocol))
	})
	return out
}

// protocolGlyph marks each point with its protocol: circle for eager,
// triangle for rendezvous.
func protocolGlyph(cells []results.Cell) func(int) draw.GlyphStyle {
	return func(i int) draw.GlyphStyle {
		g := draw.GlyphStyle{Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		if i < len(cells) && cells[i].Protocol == "rendezvous" {
			g.Shape = draw.TriangleGlyph{}
			g.Radius = vg.Points(3)
		}
		return g
	}
}

// sizeRange is the smallest and largest positive value size of op.
func sizeRange(gs []group) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, g := range gs {
		for _, c := range g.cells {
			if c.ValueSize > 0 {
				lo = math.Min(lo, float64(c.ValueSize))
				hi = math.Max(hi, float64(c.ValueSize))
			}
		}
	}
	return lo, hi
}

// ThroughputKind selects the throughput unit.
type ThroughputKind int

const (
	OpsPerSec ThroughputKind = iota
	MiBPerSec
)

// Throughput plots op's throughput against value size, one line per
// threshold, with a marker at each threshold. It returns nil when op has
// no cell with a positive value size.
func Throughput(run *results.Run, op string, kind ThroughputKind) (*Figure, error) {
	gs := groups(run, op)
	lo, hi := sizeRange(gs)
	if math.IsInf(lo, 0) {
		return nil, nil
	}
	name, ylabel, yfmt := "throughput-ops-"+op, "throughput (ops/s)", rateLabel
	if kind == MiBPerSec {
		name, ylabel, yfmt = "throughput-mib-"+op, "throughput (MiB/s of values)", mibLabel
	}
	p := newPlot(op+": throughput vs value size", "value size (bytes, log2)", ylabel)
	byteAxis(&p.X, lo, hi)
	panel := &Panel{Plot: p}
	var ys []float64
	lines := make([]plotter.XYs, len(gs))
	for i, g := range gs {
		for _, c := range g.cells {
			y := c.ThroughputOps
			if kind == MiBPerSec {
				y = c.ThroughputBytes / (1 << 20)
			}
			lines[i] = append(lines[i], plotter.XY{X: float64(c.ValueSize), Y: y})
			if y > 0 {
				ys = append(ys, y)
			}
		}
	}
	if len(ys) == 0 {
		return nil, nil
	}
	logAxis(&p.Y, slices.Min(ys), slices.Max(ys), yfmt)
	for i, g := range gs {
		if err := panel.addLine(g.name(), lines[i], colorAt(i), nil, protocolGlyph(g.cells), true); err != nil {
			return nil, err
		}
	}
	addThresholdMarkers(panel, gs)
	addProtocolLegend(panel, gs)
	return &Figure{Name: name, Panels: []*Panel{panel}}, nil
}

// Quantiles drawn by Latency, with their line dashes.
var latencyQuantiles = []struct {
	name string
	get  func(results.Latency) int64
}{
	{"p50", func(l results.Latency) int64 { return l.P50 }},
	{"p99", func(l results.Latency) int64 { return l.P99 }},
	{"p99.9", func(l results.Latency) int64 { return l.P999 }},
}

// Latency plots op's p50, p99 and p99.9 against value size: colour is the
// threshold, dash the percentile.
func Latency(run *results.Run, op string) (*Figure, error) {
	gs := groups(run, op)
	lo, hi := sizeRange(gs)
	if math.IsInf(lo, 0) {
		return nil, nil
	}
	p := newPlot(op+": latency vs value size", "value size (bytes, log2)", "latency")
	byteAxis(&p.X, lo, hi)
	panel := &Panel{Plot: p}
	var ys []float64
	for _, g := range gs {
		for _, c := range g.cells {
			for _, q := range latencyQuantiles {
				if v := q.get(c.Latency); v > 0 {
					ys = append(ys, float64(v))
				}
			}
		}
	}
	if len(ys) == 0 {
		return nil, nil
	}
	logAxis(&p.Y, slices.Min(ys), slices.Max(ys), durationLabel)
	for i, g := range gs {
		for qi, q := range latencyQuantiles {
			var pts plotter.XYs
			for _, c := range g.cells {
				pts = append(pts, plotter.XY{X: float64(c.ValueSize), Y: float64(q.get(c.Latency))})
			}
			name := g.name() + " " + q.name
			if err := panel.addLine(name, pts, colorAt(i), dashes[qi], protocolGlyph(g.cells), false); err != nil {
				return nil, err
			}
		}
		panel.Plot.Legend.Add(g.name(), legendColor(colorAt(i)))
	}
	for qi, q := range latencyQuantiles {
		panel.Plot.Legend.Add(q.name, legendLine(dashes[qi]))
	}
	addThresholdMarkers(panel, gs)
	addProtocolLegend(panel, gs)
	return &Figure{Name: "latency-" + op, Panels: []*Panel{panel}}, nil
}

// addThresholdMarkers draws each positive threshold as a dashed line in
// its series' colour: sizes left of it went eager, right of it rendezvous.
// A profile's or the adaptive policy's line has no one such size.
func addThresholdMarkers(panel *Panel, gs []group) {
	seen := map[int]bool{}
	for i, g := range gs {
		if g.threshold <= 0 || seen[g.threshold] || len(g.cells) > 0 && g.cells[0].Policy != "" {
			continue
		}
		seen[g.threshold] = true
		panel.addMarker(float64(g.threshold), units.Bytes(int64(g.threshold)), colorAt(i))
	}
}

// addProtocolLegend explains the glyphs when both protocols appear.
func addProtocolLegend(panel *Panel, gs []group) {
	var eager, rdv bool
	for _, g := range gs {
		for _, c := range g.cells {
			eager = eager || c.Protocol == "eager"
			rdv = rdv || c.Protocol == "rendezvous"
		}
	}
	if eager && rdv {
		panel.Plot.Legend.Add("eager", legendGlyph(draw.CircleGlyph{}))
		panel.Plot.Legend.Add("rendezvous", legendGlyph(draw.TriangleGlyph{}))
	}
}

func legendColor(c color.Color) *plotter.Line {
	return &plotter.Line{LineStyle: draw.LineStyle{Color: c, Width: vg.Points(2.5)}}
}

// sizeName is a value size in file names: 4KiB, 1.5KiB.
func sizeName(n int) string { return fmt.Sprint(units.Bytes(int64(n))) }
