package bench_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/results"
)

// writeFiles writes files, by path, under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// selfStat is a /proc/self/stat of a process that has used ticks jiffies.
func selfStat(ticks int) string {
	return fmt.Sprintf("42 (kvbench) R 1 42 42 0 -1 0 0 0 0 0 %d 0 0 0 20 0 5 0 1 1 1\n", ticks)
}

// hostRun runs 2000 sets of 1ms each on fake time against a fixture host
// whose CPUs have worked 100 jiffies, all this process's, when the
// measure phase starts; as it starts, the fixture moves on to busyAfter
// jiffies of work, ownAfter of them the process's. It returns each cell's
// host checks by method.
func hostRun(t *testing.T, busyAfter, ownAfter int) []map[string]bool {
	root := t.TempDir()
	stat := func(busy int) string { return fmt.Sprintf("cpu  %d 0 0 100000 0 0 0 0 0 0\n", busy) }
	writeFiles(t, root, map[string]string{"proc/stat": stat(100), "proc/self/stat": selfStat(100),
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq": "2500000\n"})
	cfg := delayConfig(closedLoop, func() time.Duration { return time.Millisecond })
	bench.SetHostRoot(&cfg, root)
	cfg.Observer = bench.ObserverFunc(func(s bench.Status) {
		if s.Event == bench.PhaseStart && s.Phase == "measure" {
			writeFiles(t, root, map[string]string{"proc/stat": stat(busyAfter), "proc/self/stat": selfStat(ownAfter)})
		}
	})
	cells, err := run(t, cfg).CellLogs()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]bool
	for _, cl := range cells {
		got := map[string]bool{}
		for _, k := range cl.Cell.Checks {
			if k.Name == results.CheckHost {
				got[k.Method] = k.Pass
			}
		}
		out = append(out, got)
	}
	return out
}

// Each measured cell carries the host checks made from the samples around
// its phase, over the phase's span on the run's clock: CPU time the
// process did not use fails it (1000s over the 2s phase, above the bound
// of any host the test runs on), CPU time the process used passes it,
// and a steady clock passes.
func TestCellsCarryHostChecks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, c := range []struct {
			name     string
			own      int
			wantPass bool
		}{{"another program", 100, false}, {"the run itself", 100100, true}} {
			cells := hostRun(t, 100100, c.own)
			if len(cells) != 1 {
				t.Fatalf("%s: %d cells", c.name, len(cells))
			}
			if pass, ok := cells[0]["other processes"]; !ok || pass != c.wantPass {
				t.Errorf("%s busy: other processes check made %v, pass %v; want pass %v", c.name, ok, pass, c.wantPass)
			}
			if pass, ok := cells[0]["cpu frequency"]; !ok || !pass {
				t.Errorf("%s busy: cpu frequency check made %v, pass %v; want passed", c.name, ok, pass)
			}
		}
	})
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
