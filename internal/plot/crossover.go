package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"github.com/kvbench/kvbench/internal/units"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Curve is one protocol's median latency against value size, with the
// spread of the repetitions (Lo, Hi) drawn as error bars.
type Curve struct {
	Name        string
	Sizes       []int
	P50, Lo, Hi []float64 // ns
}

// Crossover draws the curves of a threshold tuning for one op, marking the
// crossover size and the chosen threshold when positive.
func Crossover(op string, curves []Curve, crossover, threshold int) (*Figure, error) {
	p := newPlot(op+": forced eager vs forced rendezvous", "value size (bytes, log2)", "p50 latency (median of repeats)")
	panel := &Panel{Plot: p}
	var xs, ys []float64
	for _, c := range curves {
		for i, s := range c.Sizes {
			if s > 0 && c.P50[i] > 0 {
				xs = append(xs, float64(s))
				ys = append(ys, c.Lo[i], c.Hi[i])
			}
		}
	}
	ys = slices.DeleteFunc(ys, func(v float64) bool { return !(v > 0) })
	if len(xs) == 0 || len(ys) == 0 {
		return nil, fmt.Errorf("%s: nothing measured to plot", op)
	}
	byteAxis(&p.X, slices.Min(xs), slices.Max(xs))
	logAxis(&p.Y, slices.Min(ys), slices.Max(ys), durationLabel)
	for i, c := range curves {
		var pts plotter.XYs
		var errs plotter.YErrors
		for j, s := range c.Sizes {
			if c.P50[j] > 0 {
				pts = append(pts, plotter.XY{X: float64(s), Y: c.P50[j]})
				errs = append(errs, struct{ Low, High float64 }{
					Low: math.Max(0, c.P50[j]-c.Lo[j]), High: math.Max(0, c.Hi[j]-c.P50[j])})
			}
		}
		if err := panel.addLine(c.Name, pts, colorAt(i), nil, nil, true); err != nil {
			return nil, err
		}
		if len(pts) > 0 {
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
