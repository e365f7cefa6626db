package plot

import (
	"cmp"
	"image/color"
	"math"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// PhaseBar is one bar: the p50 of each phase in nanoseconds, by phase name
// (results.PhaseNames).
type PhaseBar map[string]float64

// PhaseSize is one value size's pair of bars; a protocol that was not
// measured at that size is nil.
type PhaseSize struct {
	Size              int
	Eager, Rendezvous PhaseBar
}

// Bar is one stacked bar as drawn. Value sizes are categories on the x
// axis: the i-th size drawn is centred on x = i, its eager bar left of it
// and its rendezvous bar right of it.
type Bar struct {
	Size     int
	Protocol string // "eager" or "rendezvous"
	X, Width float64
	// Segments are the bar's phases bottom to top, in results.PhaseNames
	// order (names it does not know follow, sorted).
	Segments []Segment
}

// Segment is one phase's part of a bar, from Lo to Hi on the y axis,
// filled in its phase's colour.
type Segment struct {
	Phase  string
	Lo, Hi float64
	Color  color.Color
}

// Bar geometry in x data units (one value size per unit): each bar is
// barWidth wide and the two bars of a size are pairGap apart, which
// leaves 1-2*barWidth-pairGap between neighbouring sizes.
const (
	barWidth = 0.36
	pairGap  = 0.06
)

// otherColors colour the parts a Bars declaration gives no colour, in
// turn.
var otherColors = []color.Color{color.Gray{Y: 0x55}, color.Gray{Y: 0x88}, color.Gray{Y: 0x33}}

// PhaseSizes collects op's phase p50s from run (barSizes of
// figure.Phases).
func PhaseSizes(run *results.Run, op string) []PhaseSize {
	return barSizes(run, op, figure.Phases, phaseBars())
}

// phaseBars is how figure.Phases is drawn.
func phaseBars() figure.Bars { return figure.Phases.Plot.(figure.Bars) }

// barSizes collects op's parts of figure f from run (decl.Parts), one
// PhaseSize per value size that has a cell with them, in size order.
// When cells of one protocol at one size come from several thresholds,
// the one with the lowest threshold is taken: the protocol, not the
// threshold, decides the path an operation takes, so those cells differ
// by noise only and the lowest makes the choice deterministic. Cells
// whose parts are none positive are skipped.
func barSizes(run *results.Run, op string, f figure.Figure, decl figure.Bars) []PhaseSize {
	type key struct {
		size  int
		proto string
	}
	chosen := map[key]PhaseBar{}
	threshold := map[key]int{}
	for _, c := range run.Cells {
		if c.Op != op || (c.Protocol != "eager" && c.Protocol != "rendezvous") || !f.Has(c) {
			continue
		}
		bar := PhaseBar(decl.Parts(c))
		k := key{c.ValueSize, c.Protocol}
		if th, ok := threshold[k]; hasParts(bar) && (!ok || c.Threshold < th) {
			chosen[k], threshold[k] = bar, c.Threshold
		}
	}
	bySize := map[int]*PhaseSize{}
	for k, bar := range chosen {
		ps := bySize[k.size]
		if ps == nil {
			ps = &PhaseSize{Size: k.size}
			bySize[k.size] = ps
		}
		if k.proto == "eager" {
			ps.Eager = bar
		} else {
			ps.Rendezvous = bar
		}
	}
	var out []PhaseSize
	for _, ps := range bySize {
		out = append(out, *ps)
	}
	slices.SortFunc(out, func(a, b PhaseSize) int { return cmp.Compare(a.Size, b.Size) })
	return out
}

func hasParts(b PhaseBar) bool {
	for _, v := range b {
		if v > 0 {
			return true
		}
	}
	return false
}

// PhaseBars draws where op's time goes: per value size a stacked bar of
// the p50 of each phase for eager (left) and rendezvous (right), phases
// stacked in results.PhaseNames order, one colour per phase in every
// figure. The top panel is in nanoseconds; the bottom one scales each
// size's pair so that its slower bar is 100%, which keeps the small sizes,
// where the protocols cross over, readable next to the large ones.
//
// A bar's height is the sum of its phases' p50s, which is close to but not
// the p50 of the whole operation. Sizes are drawn in size order; a bar is
// drawn only when its phases sum to a positive, finite time, and a size
// with no such bar is left out. PhaseBars returns a nil figure when no
// size has a bar.
func PhaseBars(op string, sizes []PhaseSize) (*Figure, error) {
	return barFigure(op, figure.Phases.Name, phaseBars(), sizes)
}

// barFigure draws the stacked bars of sizes as decl says (PhaseBars),
// named name-op.
func barFigure(op, name string, decl figure.Bars, sizes []PhaseSize) (*Figure, error) {
	sizes = slices.Clone(sizes)
	slices.SortStableFunc(sizes, func(a, b PhaseSize) int { return cmp.Compare(a.Size, b.Size) })
	sizes = slices.DeleteFunc(sizes, func(s PhaseSize) bool { return barTotal(s.Eager) <= 0 && barTotal(s.Rendezvous) <= 0 })
	if len(sizes) == 0 {
		return nil, nil
	}
	phases := phaseOrder(sizes, decl.Order)
	colors := map[string]color.Color{}
	other := 0
	for _, part := range phases {
		if c, ok := decl.Colors[part]; ok {
			colors[part] = c
		} else {
			colors[part] = otherColors[other%len(otherColors)]
			other++
		}
	}

	var abs, rel []Bar
	top := 0.0
	for i, s := range sizes {
		slower := max(barTotal(s.Eager), barTotal(s.Rendezvous))
		for _, side := range []struct {
			proto string
			bar   PhaseBar
			dx    float64
		}{{"eager", s.Eager, -1}, {"rendezvous", s.Rendezvous, 1}} {
			if barTotal(side.bar) <= 0 {
				continue
			}
			x := float64(i) + side.dx*(barWidth+pairGap)/2
			b := stackBar(s.Size, side.proto, x, side.bar, phases, colors, 1)
			abs = append(abs, b)
			rel = append(rel, stackBar(s.Size, side.proto, x, side.bar, phases, colors, 1/slower))
			top = max(top, b.Segments[len(b.Segments)-1].Hi)
		}
	}

	absPlot := barPlot(op+": "+decl.Title, "", decl.YLabel, len(sizes))
	absPlot.Y.Min, absPlot.Y.Max = 0, top*1.05
	absPlot.Y.Tick.Marker = durationTicks{}
	absPlot.Add(stackedBars(abs))
	for _, name := range legendOrder(phases) {
		absPlot.Legend.Add(name, swatch{colors[name]})
	}

	relPlot := barPlot("", "value size (E: eager, R: rendezvous)", "% of the slower bar", len(sizes))
	relPlot.Y.Min, relPlot.Y.Max = 0, 1.05
	relPlot.Y.Tick.Marker = gplot.ConstantTicks{
		{Value: 0, Label: "0%"}, {Value: 0.25, Label: "25%"}, {Value: 0.5, Label: "50%"},
		{Value: 0.75, Label: "75%"}, {Value: 1, Label: "100%"},
	}
	relPlot.X.Tick.Marker = sizeTicks(sizes, abs)
	relPlot.Add(stackedBars(rel))

	return &Figure{Name: name + "-" + op, Panels: []*Panel{
		{Plot: absPlot, Bars: abs},
		{Plot: relPlot, Bars: rel},
	}}, nil
}

// barTotal is the sum of b's positive phases, or 0 when that is not a
// positive, finite time.
func barTotal(b PhaseBar) float64 {
	sum := 0.0
	for _, v := range b {
		if v > 0 {
			sum += v
		}
	}
	if math.IsInf(sum, 0) || math.IsNaN(sum) {
		return 0
	}
	return sum
}

// phaseOrder lists the parts any bar of sizes has, in order, then the
// names order does not list, sorted.
func phaseOrder(sizes []PhaseSize, order []string) []string {
	seen := map[string]bool{}
	for _, s := range sizes {
		for _, b := range []PhaseBar{s.Eager, s.Rendezvous} {
			if barTotal(b) <= 0 {
				continue
			}
			for name, v := range b {
				if v > 0 {
					seen[name] = true
				}
			}
		}
	}
	var known, other []string
	for _, name := range order {
		if seen[name] {
			known = append(known, name)
		}
	}
	for name := range seen {
		if !slices.Contains(order, name) {
			other = append(other, name)
		}
	}
	slices.Sort(other)
	return append(known, other...)
}

// legendOrder lists the phases top of the stack first, so that the legend
// reads like the bars.
func legendOrder(phases []string) []string {
	out := slices.Clone(phases)
	slices.Reverse(out)
	return out
}

// stackBar stacks bar's positive phases in the order of phases, each
// scaled by scale.
func stackBar(size int, proto string, x float64, bar PhaseBar, phases []string, colors map[string]color.Color, scale float64) Bar {
	b := Bar{Size: size, Protocol: proto, X: x, Width: barWidth}
	y := 0.0
	for _, name := range phases {
		v := bar[name]
		if !(v > 0) {
			continue
		}
		hi := y + v*scale
		b.Segments = append(b.Segments, Segment{Phase: name, Lo: y, Hi: hi, Color: colors[name]})
		y = hi
	}
	return b
}

// barPlot is a plot for n sizes of bars: categories on x, horizontal grid
// lines only, no tick marks on x.
func barPlot(title, xLabel, yLabel string, n int) *gplot.Plot {
	p := styledPlot(title, xLabel, yLabel)
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	p.X.Tick.Length = 0
	p.X.Tick.Marker = gplot.ConstantTicks(nil)
	return p
}

// maxSizeLabels bounds the labelled value sizes so that labels like
// "256KiB" do not collide at 800px; beyond it every k-th size is labelled.
const maxSizeLabels = 12

// sizeTicks labels each bar E or R and, on the line below, each value size
// (every k-th when there are more than maxSizeLabels).
func sizeTicks(sizes []PhaseSize, bars []Bar) gplot.ConstantTicks {
	var ticks gplot.ConstantTicks
	for _, b := range bars {
		label := "E"
		if b.Protocol == "rendezvous" {
			label = "R"
		}
		ticks = append(ticks, gplot.Tick{Value: b.X, Label: label})
	}
	every := (len(sizes) + maxSizeLabels - 1) / maxSizeLabels
	for i, s := range sizes {
		if i%every == 0 {
			ticks = append(ticks, gplot.Tick{Value: float64(i), Label: "\n" + units.Bytes(int64(s.Size))})
		}
	}
	return ticks
}

// durationTicks are gonum's default linear ticks labelled as durations
// (the values are nanoseconds).
type durationTicks struct{}

func (durationTicks) Ticks(min, max float64) []gplot.Tick {
	ticks := gplot.DefaultTicks{}.Ticks(min, max)
	for i, t := range ticks {
		switch {
		case t.Label == "":
		case t.Value == 0:
			ticks[i].Label = "0"
		default:
			ticks[i].Label = durationLabel(t.Value)
		}
	}
	return ticks
}

// stackedBars draws bars in data coordinates, each segment filled in its
// colour with a thin outline.
type stackedBars []Bar

func (s stackedBars) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	edge := draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(0.5)}
	for _, b := range s {
		x0, x1 := trX(b.X-b.Width/2), trX(b.X+b.Width/2)
		for _, seg := range b.Segments {
			path := rect(x0, trY(seg.Lo), x1, trY(seg.Hi))
			c.SetColor(seg.Color)
			c.Fill(path)
			c.SetLineStyle(edge)
			c.Stroke(path)
		}
	}
}

func rect(x0, y0, x1, y1 vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: x0, Y: y0})
	p.Line(vg.Point{X: x1, Y: y0})
	p.Line(vg.Point{X: x1, Y: y1})
	p.Line(vg.Point{X: x0, Y: y1})
	p.Close()
	return p
}

// swatch is a legend sample: a filled square in a phase's colour.
type swatch struct{ color color.Color }

func (s swatch) Thumbnail(c *draw.Canvas) {
	r := c.Rectangle
	// A square at the left of the thumbnail box, as tall as the text.
	h := r.Max.Y - r.Min.Y
	path := rect(r.Min.X, r.Min.Y, r.Min.X+min(h, r.Max.X-r.Min.X), r.Max.Y)
	c.SetColor(s.color)
	c.Fill(path)
	c.SetLineStyle(draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(0.5)})
	c.Stroke(path)
}
