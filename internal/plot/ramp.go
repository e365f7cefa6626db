package plot

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// stepPanels are the figures of RampSteps, one panel each.
var stepPanels = []struct {
	name  string
	value func(results.Cell) float64
}{
	{"p50", func(c results.Cell) float64 { return float64(c.Latency.P50) }},
	{"p99", func(c results.Cell) float64 { return float64(c.Latency.P99) }},
}

// RampSteps draws an open-loop ramp of a mixed workload step by step
// (results.RampSteps): the whole workload's p50 and p99 at each rate the
// ramp held, a line per threshold and, dashed, one per policy (adaptive,
// a profile), so that the best threshold at each rate, and how near a
// policy comes to it, show at once. It is named steps-whole-workload-dist;
// nil when dist's cells ran no ramp.
func RampSteps(run *results.Run, dir, dist string) (*Figure, error) {
	cells := slices.DeleteFunc(slices.Clone(run.Cells), func(c results.Cell) bool {
		return c.Distribution != dist || len(c.Load.RampRatesOps) == 0
	})
	if len(cells) == 0 {
		return nil, nil
	}
	steps, err := results.RampSteps(dir, cells)
	if err != nil {
		return nil, err
	}
	lines := stepLines(steps)
	f := &Figure{Name: "steps-whole-workload-" + distName(dist)}
	for _, sp := range stepPanels {
		p := newPlot("", "offered rate (ops/s)", "latency "+sp.name)
		panel := &Panel{Plot: p}
		ylo, yhi := math.Inf(1), math.Inf(-1)
		for _, l := range lines {
			for _, c := range l.cells {
				ylo, yhi = math.Min(ylo, sp.value(c)), math.Max(yhi, sp.value(c))
			}
		}
		logAxis(&p.Y, ylo, yhi, durationLabel)
		for i, l := range lines {
			pts := make(plotter.XYs, 0, len(l.cells))
			for _, c := range l.cells {
				pts = append(pts, plotter.XY{X: c.Load.RateOps, Y: sp.value(c)})
			}
			dash := dashes[0]
			if l.policy {
				dash = dashes[1]
			}
			if err := panel.addLine(l.name, pts, colorAt(i), dash, nil, true); err != nil {
				return nil, err
			}
		}
		f.Panels = append(f.Panels, panel)
	}
	f.Panels[0].Plot.Title.Text = "whole workload (every op and protocol) at each step of the ramp"
	return f, nil
}

// stepLine is one threshold's or policy's whole cells, step by step.
type stepLine struct {
	name string
	// policy: a policy's line, or a baseline store's, which has no
	// threshold.
	policy bool
	cells  []results.Cell
}

// stepLines gathers the whole cells of steps by threshold: the fixed
// thresholds in ascending order, then the policies.
func stepLines(steps [][]results.Cell) []stepLine {
	var lines []stepLine
	for _, step := range steps {
		for _, c := range step {
			if c.Op != results.Whole {
				continue
			}
			name := stepLineName(c)
			i := slices.IndexFunc(lines, func(l stepLine) bool { return l.name == name })
			if i < 0 {
				i = len(lines)
				lines = append(lines, stepLine{name: name, policy: c.Policy != "" || c.Baseline()})
			}
			lines[i].cells = append(lines[i].cells, c)
		}
	}
	slices.SortStableFunc(lines, func(a, b stepLine) int {
		if a.policy || b.policy { // policies after thresholds, in order of appearance
			return cmp.Compare(boolInt(a.policy), boolInt(b.policy))
		}
		return cmp.Compare(a.cells[0].Threshold, b.cells[0].Threshold)
	})
	return lines
}

// stepLineName names a line of RampSteps: "t=4KiB", "adaptive", "redis".
func stepLineName(c results.Cell) string {
	switch {
	case c.Baseline():
		return c.Store
	case c.Policy != "":
		return c.Policy
	}
	return "t=" + units.Bytes(int64(c.Threshold))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
