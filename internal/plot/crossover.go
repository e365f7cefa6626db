package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/kvbench/kvbench/internal/units"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Curve is one protocol's median figure against value size, with the
// spread of the repetitions (Lo, Hi) drawn as error bars.
type Curve struct {
	Name        string
	Sizes       []int
	Mid, Lo, Hi []float64
	// Level draws it dotted without error bars: a figure measured at no
	// point of the x axis, level across it (a policy's, as whole.go
	// draws).
	Level bool
}

// Quantity is what a crossover chart's y axis shows.
type Quantity struct {
	// Label is the axis label, e.g. "p50 latency (median of repeats)".
	Label string
	// Rate says the values are per second (ops/s), else nanoseconds.
	Rate bool
}

// Crossover draws the curves of a threshold tuning for one op, marking the
// crossover size and the chosen threshold when positive. title follows
// "op: ".
func Crossover(op, title string, q Quantity, curves []Curve, crossover, threshold int) (*Figure, error) {
	panel, err := curvesPanel(op+": "+title, "value size (bytes, log2)", q, curves)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	if crossover > 0 {
		label := "crossover " + units.Bytes(int64(crossover))
		if threshold == crossover {
			label += " = threshold"
		}
		panel.addMarker(float64(crossover), label, color.Black)
	}
	if threshold > 0 && threshold != crossover {
		// A line below the crossover's label: the two markers are often
		// an octave or less apart.
		panel.addMarkerRow(float64(threshold), "threshold "+units.Bytes(int64(threshold)), 1, color.Gray{Y: 110})
	}
	return &Figure{Name: "tune-" + op, Panels: []*Panel{panel}}, nil
}

// curvesPanel draws curves, each median with its spread as error bars,
// over a log2 byte axis labelled xLabel.
func curvesPanel(title, xLabel string, q Quantity, curves []Curve) (*Panel, error) {
	p := newPlot(title, xLabel, q.Label)
	panel := &Panel{Plot: p}
	var xs, ys []float64
	for _, c := range curves {
		for i, s := range c.Sizes {
			if s > 0 && c.Mid[i] > 0 {
				xs = append(xs, float64(s))
				ys = append(ys, c.Lo[i], c.Hi[i])
			}
		}
	}
	ys = slices.DeleteFunc(ys, func(v float64) bool { return !(v > 0) })
	if len(xs) == 0 || len(ys) == 0 {
		return nil, errors.New("nothing measured to plot")
	}
	byteAxis(&p.X, slices.Min(xs), slices.Max(xs))
	format := durationLabel
	if q.Rate {
		format = rateLabel
	}
	logAxis(&p.Y, slices.Min(ys), slices.Max(ys), format)
	for i, c := range curves {
		var pts plotter.XYs
		var errs plotter.YErrors
		for j, s := range c.Sizes {
			if c.Mid[j] > 0 {
				pts = append(pts, plotter.XY{X: float64(s), Y: c.Mid[j]})
				errs = append(errs, struct{ Low, High float64 }{
					Low: math.Max(0, c.Mid[j]-c.Lo[j]), High: math.Max(0, c.Hi[j]-c.Mid[j])})
			}
		}
		var dash []vg.Length
		if c.Level {
			dash = dashes[2]
		}
		if err := panel.addLine(c.Name, pts, colorAt(i), dash, nil, true); err != nil {
			return nil, err
		}
		if len(pts) > 0 && !c.Level {
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{pts, errs})
			if err != nil {
				return nil, err
			}
			eb.Color = colorAt(i)
			eb.CapWidth = vg.Points(4)
			p.Add(eb)
		}
	}
	return panel, nil
}
