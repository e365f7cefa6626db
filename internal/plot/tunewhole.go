package plot

import (
	"image/color"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
)

// tuneCandidates is the chart of a tune on a distribution at load l: the
// whole workload's figure (its capacity under a latency goal) against
// the candidate threshold, with the rounds' spread, the chosen threshold
// marked and, when single sizes were measured and found one, the
// threshold they predict. A candidate that met the goal at no rate has
// no point, and with none that met it there is no chart.
func tuneCandidates(r *tune.Result, l *tune.LoadResult) (*Figure, error) {
	w, j := l.Workload, r.Config.Judge()
	c := Curve{Name: "whole workload (" + r.Config.Workload.Distribution + ")"}
	for _, cand := range w.Candidates {
		if cand.Status == tune.Measured {
			c.add(cand.Threshold, cand.Value, cand.Samples, j.Value)
		}
	}
	title := tuneTitle(r, l, "workload: candidate thresholds")
	q := Quantity{Label: r.Config.ObjectiveName() + " over all ops (median of rounds)", Rate: r.Objective.Higher()}
	panel, err := curvesPanel(title, "eager threshold (bytes, log2)", q, []Curve{c})
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
