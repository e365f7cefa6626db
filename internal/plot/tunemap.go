package plot

import (
	"fmt"
	"image/color"
	"math"

	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// MapCell is one (size, load) of a threshold map: the protocol that won
// ("eager", "rendezvous", "tie", "neither", or "unmeasured"; "left out"
// when drawn from trusted measurements alone it stood on one that failed
// a check) and the ratio of the two (above 1: rendezvous better; 0 when
// nothing was compared); Untrusted when a measurement it stands on failed
// a check.
type MapCell struct {
	Winner    string
	Ratio     float64
	Untrusted bool
}

// leftOutTile is the winner of a tile left out as untrusted.
const leftOutTile = "left out"

// Tile is a drawn map cell, kept in the figure model for tests.
type Tile struct {
	Col, Row int
	Cell     MapCell
	Color    color.Color
}

// Map colours: eager and rendezvous in the palette's blue and vermillion,
// deeper the larger the margin (full at a factor of fullMargin), ties in
// grey, cells not compared or left out in white; an untrusted cell, whose
// winner a failed check puts in doubt, in a mid grey of its own, crossed.
var (
	eagerColor     = palette[0]
	rdvColor       = palette[1]
	tieColor       = color.Gray{Y: 215}
	neitherColor   = color.Gray{Y: 120}
	untrustedColor = color.Gray{Y: 170}
	noneColor      = color.White
)

const fullMargin = 4.0

// ThresholdMap draws, for op, who won at each value size (rows) and load
// (columns, named by loads), coloured by winner and margin, with each
// column's recommended threshold (bytes of key plus value, 0: none) as a
// line below the first size it sends rendezvous. keySize places those
// lines.
func ThresholdMap(op, by string, sizes []int, loads []string, cells [][]MapCell, thresholds []int, keySize int) (*Figure, error) {
	if len(sizes) == 0 || len(loads) == 0 {
		return nil, fmt.Errorf("%s: an empty map", op)
	}
	p := styledPlot(op+": winner by "+by+" at each load", "load", "value size")
	p.X.Min, p.X.Max = -0.5, float64(len(loads))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(sizes))-0.5
	var xt, yt []gplot.Tick
	for j, l := range loads {
		xt = append(xt, gplot.Tick{Value: float64(j), Label: l})
	}
	for i, s := range sizes {
		yt = append(yt, gplot.Tick{Value: float64(i), Label: units.Bytes(int64(s))})
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = gplot.ConstantTicks(xt), gplot.ConstantTicks(yt)
	panel := &Panel{Plot: p}
	g := &tileGrid{}
	for i := range sizes {
		for j := range loads {
			c := cells[i][j]
			t := Tile{Col: j, Row: i, Cell: c, Color: tileColor(c)}
			g.tiles = append(g.tiles, t)
			panel.Tiles = append(panel.Tiles, t)
		}
	}
	for j, t := range thresholds {
		if row := firstRendezvous(sizes, t, keySize); row >= 0 {
			g.cuts = append(g.cuts, [2]float64{float64(j), float64(row) - 0.5})
			panel.Markers = append(panel.Markers, float64(row)-0.5)
		}
	}
	p.Add(g)
	addMapLegend(p, g.tiles)
	p.Legend.Add("threshold", legendLine(nil))
	return &Figure{Name: "tune-map-" + op, Panels: []*Panel{panel}}, nil
}

// addMapLegend names on p's legend the colours its tiles use.
func addMapLegend(p *gplot.Plot, tiles []Tile) {
	seen := map[string]bool{}
	for _, t := range tiles {
		seen[t.Cell.Winner] = seen[t.Cell.Winner] || !t.Cell.Untrusted
		seen[untrusted] = seen[untrusted] || t.Cell.Untrusted
	}
	for _, l := range []struct {
		winner, name string
		c            color.Color
	}{{"eager", "eager better", eagerColor}, {"rendezvous", "rendezvous better", rdvColor}, {"tie", "tie", tieColor},
		{"neither", "neither meets the goal", neitherColor}, {"unmeasured", "not compared", noneColor},
		{untrusted, "untrusted: a check failed", untrustedColor}, {leftOutTile, "left out: a check failed", noneColor}} {
		if seen[l.winner] {
			p.Legend.Add(l.name, swatch{l.c})
		}
	}
}

// untrusted keys the untrusted tiles in a map's legend.
const untrusted = "untrusted"

// firstRendezvous is the row of the first size threshold sends rendezvous
// (rdmakv.ProtocolAt; -1: none; none for a threshold of 0).
func firstRendezvous(sizes []int, threshold, keySize int) int {
	if threshold <= 0 {
		return -1
	}
	for i, s := range sizes {
		if rdmakv.ProtocolAt(threshold, keySize, s) == rdmakv.Rendezvous {
			return i
		}
	}
	return -1
}

// tileColor is c's winner's colour, deeper with the margin.
func tileColor(c MapCell) color.Color {
	if c.Untrusted {
		return untrustedColor
	}
	var base color.Color
	switch c.Winner {
	case "eager":
		base = eagerColor
	case "rendezvous":
		base = rdvColor
	case "tie":
		return tieColor
	case "neither":
		return neitherColor
	default:
		return noneColor
	}
	depth := 1.0
	if c.Ratio > 0 {
		depth = math.Min(1, math.Abs(math.Log(c.Ratio))/math.Log(fullMargin))
	}
	return mix(base, 0.35+0.65*depth)
}

// mix blends white towards c by t in [0, 1].
func mix(c color.Color, t float64) color.Color {
	r, g, b, _ := c.RGBA()
	f := func(v uint32) uint8 { return uint8(255 - t*(255-float64(v>>8))) }
	return color.RGBA{f(r), f(g), f(b), 0xFF}
}

// tileGrid draws the map's tiles with their ratios, and each column's
// threshold as a black line. It is not a DataRanger: the axes are set by
// ThresholdMap.
type tileGrid struct {
	tiles []Tile
	cuts  [][2]float64 // column, y of the threshold line
}

func (g *tileGrid) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	edge := draw.LineStyle{Color: color.White, Width: vg.Points(1)}
	cross := draw.LineStyle{Color: color.Gray{Y: 60}, Width: vg.Points(1)}
	sty := p.X.Tick.Label
	sty.XAlign, sty.YAlign = draw.XCenter, draw.YCenter
	for _, t := range g.tiles {
		x, y := float64(t.Col), float64(t.Row)
		path := rect(trX(x-0.5), trY(y-0.5), trX(x+0.5), trY(y+0.5))
		c.SetColor(t.Color)
		c.Fill(path)
		c.SetLineStyle(edge)
		c.Stroke(path)
		if t.Cell.Untrusted {
			c.StrokeLine2(cross, trX(x-0.5), trY(y-0.5), trX(x+0.5), trY(y+0.5))
		}
		if t.Cell.Ratio > 0 {
			c.FillText(sty, vg.Point{X: trX(x), Y: trY(y)}, fmt.Sprintf("%.2f", t.Cell.Ratio))
		}
	}
	line := draw.LineStyle{Color: color.Black, Width: vg.Points(2.5)}
	for _, cut := range g.cuts {
		c.StrokeLine2(line, trX(cut[0]-0.5), trY(cut[1]), trX(cut[0]+0.5), trY(cut[1]))
	}
}
