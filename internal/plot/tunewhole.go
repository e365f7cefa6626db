package plot

import (
	"image/color"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
)

// tuneCandidates is the chart of a tune on a distribution at load l: the
// whole workload's figure (its capacity under a latency goal) against
// the candidate threshold, with the rounds' spread, the adaptive
// policy's level across them when it was compared, the chosen threshold
// marked and, when single sizes were measured and found one, the
// threshold they predict. A candidate that met the goal at no rate has
// no point, and with none that met it there is no chart.
func tuneCandidates(r *tune.Result, l *tune.LoadResult, tf *tuneFilter) (*Figure, error) {
	w, j := l.Workload, r.Config.Judge()
	// The distribution is named in tune.txt: as a legend entry, a long
	// one (a weighted list) left the data area a sliver.
	c := Curve{Name: "whole workload"}
	for _, cand := range w.Candidates {
		if cand.Status == tune.Measured && tf.keep(cand.Samples) {
			c.add(cand.Threshold, cand.Value, cand.Samples, j.Value)
		}
	}
	curves := []Curve{c}
	if level, ok := adaptiveLevel(w.Adaptive, c); ok && tf.keep(w.Adaptive.Samples) {
		curves = append(curves, level)
	}
	title := tuneTitle(r, l, "workload: candidate thresholds")
	q := Quantity{Label: r.Config.ObjectiveName() + " over all ops (median of rounds)", Rate: r.Objective.Higher()}
	panel, err := curvesPanel(title, "eager threshold (bytes, log2)", q, curves)
	if err != nil {
		return nil, err
	}
	if w.Chosen > 0 {
		panel.addMarker(float64(w.Chosen), "chosen "+units.Bytes(int64(w.Chosen)), color.Black)
	}
	if p := w.Predicted; p > 0 && p != w.Chosen {
		panel.addMarkerRow(float64(p), "single sizes predict "+units.Bytes(int64(p)), 1, color.Gray{Y: 110})
	}
	return &Figure{Name: "tune-workload", Panels: []*Panel{panel}}, nil
}

// adaptiveLevel is the adaptive policy's figure as a level across the
// candidates drawn on c: the policy has no threshold of its own to stand
// at. None when it was not measured or met the goal at no rate.
func adaptiveLevel(a *tune.Adaptive, c Curve) (Curve, bool) {
	var xs []int
	for i, x := range c.Sizes {
		if c.Mid[i] > 0 {
			xs = append(xs, x)
		}
	}
	if a == nil || a.Status != tune.Measured || a.Value <= 0 || len(xs) == 0 {
		return Curve{}, false
	}
	v := []float64{a.Value, a.Value}
	return Curve{Name: tune.AdaptiveName + " (not a candidate)", Sizes: []int{xs[0], xs[len(xs)-1]}, Mid: v, Lo: v, Hi: v, Level: true}, true
}
