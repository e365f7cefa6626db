package plot

import (
	"slices"
	"testing"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/figure/figuretest"
)

// Every declared figure that asks plot for a figure gets one per op, named
// after it, among the run's figures.
func TestEveryFigureDraws(t *testing.T) {
	run := testRun(t, "")
	figuretest.FillRun(t, run)
	figs, _, err := Figures(run, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	names := figureNames(figs)
	for _, f := range figure.All() {
		for _, op := range Ops(run) {
			if got := slices.Contains(names, f.Name+"-"+op); got != (f.Plot != nil) {
				t.Errorf("%s: figure of %s %v, declared %T", f.Name, op, got, f.Plot)
			}
		}
	}
}

// A figure declared by the test alone is drawn with no edit of plot's:
// one line per protocol against value size, after latency.
func TestRegisteredFigureDraws(t *testing.T) {
	t.Cleanup(figure.Register(figuretest.Fake()))
	run := testRun(t, "")
	for i := range run.Cells {
		run.Cells[i].IntervalNs = int64(run.Cells[i].ValueSize)
	}
	f, err := FigureOf(run, "get", figuretest.Fake())
	if err != nil || f == nil {
		t.Fatalf("%v, %v", f, err)
	}
	if f.Name != figuretest.FakeName+"-get" || f.Panels[0].Plot.Y.Label.Text != "fake ticks" || len(f.Panels[0].Series) == 0 {
		t.Errorf("figure %s, y %q, series %v", f.Name, f.Panels[0].Plot.Y.Label.Text, names(f.Panels[0]))
	}
	figs, _, err := Figures(run, "", Options{})
	if err != nil || !slices.Contains(figureNames(figs), figuretest.FakeName+"-set") {
		t.Errorf("figures %v, %v", figureNames(figs), err)
	}
}
