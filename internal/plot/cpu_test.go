package plot

import (
	"slices"
	"testing"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// cpuRun is a run at thresholds 0 (all rendezvous) and 64KiB (eager below
// it) whose cells' client CPU per operation is 1000 ns + size/64 +
// threshold/16 and the server's half of it, in scope.
func cpuRun(t *testing.T, scope string) *results.Run {
	t.Helper()
	run, err := resultstest.Build("", resultstest.Spec{Ops: []string{"get", "set"}, Sizes: []int{64, 4096, 65536},
		Thresholds: []int{0, 65536}, Samples: 200, Intervals: 1, Seed: 1, Model: resultstest.Default})
	if err != nil {
		t.Fatal(err)
	}
	for i := range run.Cells {
		c := &run.Cells[i]
		ns := int64(1000 + c.ValueSize/64 + c.Threshold/16)
		var server *results.CPUTime
		if scope == results.CPUScopeClient {
			server = &results.CPUTime{UserNs: ns / 2}
		}
		c.CPU = results.NewCellCPU(scope, 1, results.CPUTime{UserNs: ns}, server)
	}
	return run
}

func series(p *Panel, name string) plotter.XYs {
	for _, s := range p.Series {
		if s.Name == name {
			return s.Points
		}
	}
	return nil
}

// One line per protocol and side, eager beside rendezvous; where both
// thresholds ran rendezvous at one size, the lower threshold's cell.
func TestCPUModel(t *testing.T) {
	run := cpuRun(t, results.CPUScopeClient)
	run.Cells[0].CPU.Server = nil // get 64B at threshold 0: rendezvous, client only
	f, err := FigureOf(run, "get", figure.CPU)
	if err != nil || f == nil {
		t.Fatalf("CPU: %v, %v", f, err)
	}
	p := f.Panels[0]
	if got, want := names(p), []string{"eager client", "eager server", "rendezvous client", "rendezvous server"}; !slices.Equal(got, want) {
		t.Errorf("series %v, want %v", got, want)
	}
	want := map[string]plotter.XYs{
		"eager client":      {{X: 64, Y: 5097}, {X: 4096, Y: 5160}},
		"eager server":      {{X: 64, Y: 2548}, {X: 4096, Y: 2580}},
		"rendezvous client": {{X: 64, Y: 1001}, {X: 4096, Y: 1064}, {X: 65536, Y: 2024}},
		"rendezvous server": {{X: 4096, Y: 532}, {X: 65536, Y: 1012}},
	}
	for name, pts := range want {
		if got := series(p, name); !slices.Equal(got, pts) {
			t.Errorf("%s: %v, want %v", name, got, pts)
		}
	}
	if f.Name != "cpu-get" || p.Plot.Y.Label.Text != "CPU time per operation" {
		t.Errorf("name %q, y label %q", f.Name, p.Plot.Y.Label.Text)
	}
	if _, ok := p.Plot.Y.Scale.(gplot.LogScale); !ok {
		t.Error("CPU axis is not logarithmic")
	}
}

// With the server inside kvbench the one figure is the process's.
func TestCPUModelProcess(t *testing.T) {
	f, err := FigureOf(cpuRun(t, results.CPUScopeProcess), "set", figure.CPU)
	if err != nil || f == nil {
		t.Fatalf("CPU: %v, %v", f, err)
	}
	if got, want := names(f.Panels[0]), []string{"eager process", "rendezvous process"}; !slices.Equal(got, want) {
		t.Errorf("series %v, want %v", got, want)
	}
}

// Figures has a CPU figure per op exactly when cells have CPU figures.
func TestFiguresCPU(t *testing.T) {
	for _, c := range []struct {
		run  *results.Run
		want []string
	}{{testRun(t, ""), nil}, {cpuRun(t, results.CPUScopeClient), []string{"cpu-get", "cpu-set"}}} {
		figs, _, err := Figures(c.run, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range figs {
			if len(f.Name) > 4 && f.Name[:4] == "cpu-" {
				got = append(got, f.Name)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("CPU figures %v, want %v", got, c.want)
		}
	}
}
