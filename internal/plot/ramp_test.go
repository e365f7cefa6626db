package plot

import (
	"slices"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// A ramp's figure has a line per threshold, fixed ones first, then the
// adaptive policy's, each with the whole workload's p50 at every rate the
// ramp held.
func TestRampSteps(t *testing.T) {
	dir := t.TempDir()
	run, err := resultstest.Ramp(dir,
		resultstest.RampLine{Threshold: results.AdaptiveThreshold, Policy: results.PolicyAdaptive, EagerUs: 100, Eager: 100, RdvUs: 100, Rdv: 100},
		resultstest.RampLine{Threshold: 65536, EagerUs: 300, Eager: 200, RdvUs: 300, Rdv: 0},
		resultstest.RampLine{Threshold: 1024, EagerUs: 200, Eager: 0, RdvUs: 200, Rdv: 200})
	if err != nil {
		t.Fatal(err)
	}
	f, err := RampSteps(run, dir, run.Cells[0].Distribution)
	if err != nil || f == nil || len(f.Panels) != 2 {
		t.Fatalf("%v, %v", f, err)
	}
	p50 := f.Panels[0]
	if got, want := names(p50), []string{"t=1KiB", "t=64KiB", "adaptive"}; !slices.Equal(got, want) {
		t.Fatalf("lines %v, want %v", got, want)
	}
	for i, want := range []float64{200, 300, 100} { // µs at 500 ops/s, three times that at 1000
		pts := p50.Series[i].Points
		if len(pts) != 2 || pts[0].X != 500 || pts[1].X != 1000 ||
			pts[0].Y < want*1000 || pts[0].Y > want*1010 || pts[1].Y < 3*want*1000 || pts[1].Y > 3*want*1010 {
			t.Errorf("%s: %v, want p50 %vµs at 500 ops/s and %vµs at 1000", p50.Series[i].Name, pts, want, 3*want)
		}
	}
}

// A run without a ramp has no step figure.
func TestRampStepsWithoutARamp(t *testing.T) {
	run := resultstest.MixedA(t)
	if f, err := RampSteps(run, t.TempDir(), Distributions(run)[0]); f != nil || err != nil {
		t.Errorf("%v, %v; want none", f, err)
	}
}
