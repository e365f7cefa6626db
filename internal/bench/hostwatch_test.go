package bench_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/results"
)

// writeHost writes a host's proc and sys files under a new root.
func writeHost(t *testing.T, loadavg string, freqKHz string) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"proc/loadavg": loadavg,
		"proc/stat":    "cpu  100 0 50 1000 0 0 0 0 0 0\n",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq": freqKHz,
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Each measured cell carries the host checks made from the samples around
// its phase: a load far above what the run uses fails, a steady clock
// passes.
func TestCellsCarryHostChecks(t *testing.T) {
	cfg := baseConfig(&benchtest.Fake{})
	bench.SetHostRoot(&cfg, writeHost(t, "512.00 400.00 300.00 9/999 1\n", "2500000\n"))
	cells, err := run(t, cfg).CellLogs()
	if err != nil {
		t.Fatal(err)
	}
	for _, cl := range cells {
		got := map[string]bool{}
		for _, k := range cl.Cell.Checks {
			if k.Name == results.CheckHost {
				got[k.Method] = k.Pass
			}
		}
		if pass, ok := got["load average"]; !ok || pass {
			t.Errorf("%s: load average check made %v, pass %v; want failed", cl.Cell.Op, ok, pass)
		}
		if pass, ok := got["cpu frequency"]; !ok || !pass {
			t.Errorf("%s: cpu frequency check made %v, pass %v; want passed", cl.Cell.Op, ok, pass)
		}
	}
}

// MeasureCost reports the harness's cost on a no-op target: some time per
// operation and per clock read, and no allocations in its steady state.
func TestMeasureCost(t *testing.T) {
	c, err := bench.MeasureCost(0)
	if err != nil {
		t.Fatal(err)
	}
	if c.OverheadNs <= 0 || c.ClockReadNs <= 0 {
		t.Errorf("cost %+v: want positive times", c)
	}
	if c.AllocsPerOp > 0.01 {
		t.Errorf("%.3g allocations per operation, want none", c.AllocsPerOp)
	}
}
