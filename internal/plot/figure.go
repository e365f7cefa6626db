// Package plot draws kvbench results with gonum/plot: throughput, latency
// and CPU time per operation against value size, HdrHistogram-style
// percentile distributions, and throughput and p99 over time from the
// interval logs.
//
// Every chart is built as a Figure, a model holding the gonum plots and the
// series put on them, and only then rendered; tests inspect the model
// rather than pixels.
package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Default output size: readable on a laptop screen and in a README.
const (
	DefaultWidthPx  = 800
	DefaultHeightPx = 500
	dpi             = 96
)

// Series is one named line on a panel with the points it was drawn from.
type Series struct {
	Name   string
	Points plotter.XYs
}

// Panel is one gonum plot plus the series, vertical markers and bars
// drawn on it.
type Panel struct {
	Plot    *gplot.Plot
	Series  []Series
	Markers []float64 // x positions of vertical marker lines (a map's: y of its threshold lines)
	Bars    []Bar     // stacked bars (PhaseBars)
	Tiles   []Tile    // map cells (ThresholdMap)
}

// Figure is one output image: panels stacked top to bottom, each with its
// legend to its right, outside the data area so it never hides a point.
type Figure struct {
	// Name is the file name without extension.
	Name   string
	Panels []*Panel
	// Caption, when set, is printed small at the bottom right: the build
	// that measured, so a published figure names it.
	Caption string
	// Note, when set, follows the build in the caption: what was left out
	// of a figure drawn from trusted measurements alone (leftOutNote).
	Note string
	// scope picks the cells of a run the figure draws; nil for a figure
	// of a tune.
	scope cellScope
	// tail says the figure draws percentiles beyond the median, so the
	// cells it may draw under TrustedOnly are those trusted throughout.
	tail bool
}

// Formats are the image formats Save writes.
var Formats = []string{"png", "svg"}

// Save writes the figure as dir/Name.<format> for each format, at the given
// size in pixels (SVG gets the same size in CSS pixels). It returns the
// paths written.
func (f *Figure) Save(dir string, widthPx, heightPx int, formats ...string) ([]string, error) {
	if len(formats) == 0 {
		formats = Formats
	}
	w := vg.Length(widthPx) * vg.Inch / dpi
	h := vg.Length(heightPx) * vg.Inch / dpi
	var paths []string
	for _, format := range formats {
		var cw vg.CanvasWriterTo
		switch format {
		case "png":
			cw = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi))}
		case "svg":
			cw = vgsvg.New(w, h)
		default:
			return paths, fmt.Errorf("unknown image format %q (want png or svg)", format)
		}
		f.Draw(draw.New(cw))
		path := filepath.Join(dir, f.Name+"."+format)
		if err := writeTo(path, cw); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// SVG renders the figure as an SVG document at the given size in CSS
// pixels, for a page to inline.
func (f *Figure) SVG(widthPx, heightPx int) ([]byte, error) {
	cw := vgsvg.New(vg.Length(widthPx)*vg.Inch/dpi, vg.Length(heightPx)*vg.Inch/dpi)
	f.Draw(draw.New(cw))
	var b bytes.Buffer
	if _, err := cw.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func writeTo(path string, cw vg.CanvasWriterTo) (err error) {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := file.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = cw.WriteTo(file)
	return err
}

// Draw renders the panels, stacked, onto c. All panels share one legend
// strip width and gonum's alignment, so their data areas line up and a
// shared x axis reads straight down. It returns the panels' data areas,
// top to bottom.
func (f *Figure) Draw(c draw.Canvas) (data []vg.Rectangle) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	var lw vg.Length
	for _, p := range f.Panels {
		r := p.Plot.Legend.Rectangle(c)
		lw = max(lw, r.Max.X-r.Min.X)
	}
	if lw > 0 {
		lw += 2 * legendGap
	}
	plots := make([][]*gplot.Plot, len(f.Panels))
	saved := make([]gplot.Legend, len(f.Panels))
	ylabels := make([]string, len(f.Panels))
	var yw vg.Length // width of the y label strip
	for i, p := range f.Panels {
		plots[i] = []*gplot.Plot{p.Plot}
		// The legend is drawn outside, in the strip; hide it from Draw.
		saved[i], p.Plot.Legend = p.Plot.Legend, gplot.NewLegend()
		// gonum places the y label's glyph box at the arithmetic middle of
		// the axis range, which on a log axis sits near the top and makes
		// padY shrink the data area for nothing; the labels are drawn here
		// instead, in a strip of their own.
		if l := p.Plot.Y.Label; l.Text != "" {
			yw = max(yw, l.TextStyle.Height(l.Text)+l.Padding)
		}
		ylabels[i], p.Plot.Y.Label.Text = p.Plot.Y.Label.Text, ""
	}
	defer func() {
		for i, p := range f.Panels {
			p.Plot.Legend = saved[i]
			p.Plot.Y.Label.Text = ylabels[i]
		}
	}()
	area := draw.Crop(c, yw, -lw, f.drawCaption(c), 0)
	canvases := gplot.Align(plots, draw.Tiles{Rows: len(f.Panels), Cols: 1, PadY: vg.Points(4)}, area)
	for i, p := range f.Panels {
		pc := canvases[i][0]
		p.Plot.Draw(pc)
		dc := p.Plot.DataCanvas(pc)
		data = append(data, dc.Rectangle)
		if ylabels[i] != "" {
			drawYLabel(c, dc, p.Plot.Y.Label.TextStyle, ylabels[i])
		}
		if lw > 0 {
			leg := saved[i]
			leg.Top, leg.Left = true, true
			strip := pc
			strip.Min.X, strip.Max.X = c.Max.X-lw+legendGap, c.Max.X
			strip.Max.Y -= legendGap
			leg.Draw(strip)
		}
	}
	return data
}

// drawCaption writes the caption at the bottom right of c and returns the
// height it takes (0 without one).
func (f *Figure) drawCaption(c draw.Canvas) vg.Length {
	if f.Caption == "" {
		return 0
	}
	sty := text.Style{Color: color.Gray{Y: 110}, Font: font.From(sansFont(8), 8), XAlign: draw.XRight, YAlign: draw.YBottom,
		Handler: &text.Plain{Fonts: font.DefaultCache}}
	c.FillText(sty, vg.Point{X: c.Max.X - 2, Y: c.Min.Y + 2}, f.Caption)
	return sty.Height(f.Caption) + 4
}

// drawYLabel writes a rotated y axis label at the left edge of c, centred
// on the data area dc, as gonum's own label would be.
func drawYLabel(c, dc draw.Canvas, sty text.Style, label string) {
	descent := sty.FontExtents().Descent
	sty.Rotation += math.Pi / 2
	x := c.Min.X + sty.Height(label) - descent
	c.FillText(sty, vg.Point{X: x, Y: (dc.Min.Y + dc.Max.Y) / 2}, label)
}

// legendGap separates the data area from the legend strip.
const legendGap = 6

// newPlot returns a plot with kvbench's text sizes and grid.
func newPlot(title, xLabel, yLabel string) *gplot.Plot {
	p := styledPlot(title, xLabel, yLabel)
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	return p
}

// styledPlot is newPlot without the grid.
func styledPlot(title, xLabel, yLabel string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	// Sans at these sizes stays legible when an 800x500 image is scaled
	// down in a README or a slide.
	sans := sansFont
	p.Title.TextStyle.Font = sans(13)
	p.X.Label.TextStyle.Font = sans(11)
	p.Y.Label.TextStyle.Font = sans(11)
	p.X.Tick.Label.Font = sans(9)
	p.Y.Tick.Label.Font = sans(9)
	p.Legend.TextStyle.Font = sans(10)
	p.Legend.ThumbnailWidth = vg.Points(18)
	return p
}

// sansFont is Liberation Sans at size points.
func sansFont(size float64) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: font.Length(size)}
}

// palette is the Okabe-Ito colour-blind safe set (yellow dropped: it
// vanishes on white).
var palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xFF}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xFF}, // vermillion
	color.RGBA{0x00, 0x9E, 0x73, 0xFF}, // green
	color.RGBA{0xCC, 0x79, 0xA7, 0xFF}, // purple
	color.RGBA{0xE6, 0x9F, 0x00, 0xFF}, // orange
	color.RGBA{0x56, 0xB4, 0xE9, 0xFF}, // sky
	color.RGBA{0x00, 0x00, 0x00, 0xFF}, // black
}

func colorAt(i int) color.Color { return palette[i%len(palette)] }

// dashes distinguish lines that share a colour (p50, p99, p99.9).
var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(1.5), vg.Points(2)}}

// vline is a vertical marker across the whole data area. It is not a
// DataRanger, so it never stretches the axes.
type vline struct {
	X     float64
	Label string
	// Row moves the label down by that many text lines, so labels of
	// nearby markers do not run into each other.
	Row int
	draw.LineStyle
}

func (v vline) Plot(c draw.Canvas, p *gplot.Plot) {
	if v.X < p.X.Min || v.X > p.X.Max {
		return
	}
	x := c.X(p.X.Norm(v.X))
	c.StrokeLine2(v.LineStyle, x, c.Min.Y, x, c.Max.Y)
	if v.Label != "" {
		sty := p.X.Tick.Label
		sty.Color = v.Color
		sty.XAlign = draw.XLeft
		sty.YAlign = draw.YTop
		y := c.Max.Y - 1 - vg.Length(v.Row)*sty.Height(v.Label)
		c.FillText(sty, vg.Point{X: x + 2, Y: y}, v.Label)
	}
}

// addMarker draws a dashed vertical line at x in colour col.
func (p *Panel) addMarker(x float64, label string, col color.Color) {
	p.addMarkerRow(x, label, 0, col)
}

// addMarkerRow is addMarker with the label row lines down.
func (p *Panel) addMarkerRow(x float64, label string, row int, col color.Color) {
	p.Plot.Add(vline{X: x, Label: label, Row: row, LineStyle: draw.LineStyle{
		Color: col, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)},
	}})
	p.Markers = append(p.Markers, x)
}

// addLine adds a named line with glyphs; glyph(i) styles point i (nil for
// plain circles). It drops points a log axis cannot show.
func (p *Panel) addLine(name string, pts plotter.XYs, col color.Color, dash []vg.Length, glyph func(i int) draw.GlyphStyle, legend bool) error {
	pts = positive(pts, p.Plot)
	if len(pts) == 0 {
		return nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	l.Color = col
	l.Width = vg.Points(1.5)
	l.Dashes = dash
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	s.Color = col
	s.Radius = vg.Points(2.5)
	if glyph != nil {
		s.GlyphStyleFunc = func(i int) draw.GlyphStyle {
			g := glyph(i)
			g.Color = col
			return g
		}
	}
	p.Plot.Add(l, s)
	if legend {
		p.Plot.Legend.Add(name, l)
	}
	p.Series = append(p.Series, Series{Name: name, Points: pts})
	return nil
}

// noGlyphs draws a line without point markers, for dense curves.
func noGlyphs(int) draw.GlyphStyle { return draw.GlyphStyle{Shape: draw.CircleGlyph{}} }

// positive keeps the points a log-scaled axis can place.
func positive(pts plotter.XYs, p *gplot.Plot) plotter.XYs {
	_, xlog := p.X.Scale.(gplot.LogScale)
	_, ylog := p.Y.Scale.(gplot.LogScale)
	out := pts[:0:0]
	for _, pt := range pts {
		if (xlog && !(pt.X > 0)) || (ylog && !(pt.Y > 0)) {
			continue
		}
		out = append(out, pt)
	}
	return out
}

// legendThumb is a legend-only sample: a line style or a glyph in black.
func legendLine(dash []vg.Length) gplot.Thumbnailer {
	l := &plotter.Line{LineStyle: draw.LineStyle{Color: color.Black, Width: vg.Points(1.5), Dashes: dash}}
	return l
}

func legendGlyph(shape draw.GlyphDrawer) gplot.Thumbnailer {
	return &plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: color.Black, Radius: vg.Points(3), Shape: shape}}
}
