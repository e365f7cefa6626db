package bench_test

import (
	"math"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/workload"
)

// TestOpPhasesAddUp runs a fake whose operations spend known times in
// network and server: each cell records those phases exactly, a client
// phase for the rest, every phase once per operation, and the phases'
// p50s add up to the cell's p50. The sleeps outlast their request, and
// the overshoot lands in client, never in the known phases.
func TestOpPhasesAddUp(t *testing.T) {
	known := []benchtest.Phase{{Phase: bench.PhaseNetwork, Time: 300 * time.Microsecond}, {Phase: bench.PhaseServer, Time: 200 * time.Microsecond}}
	for _, mode := range []string{"closed", "open"} {
		t.Run(mode, func(t *testing.T) {
			cfg := baseConfig(&benchtest.Fake{Phases: known})
			cfg.Mix, cfg.Measure = workload.Mix{Get: 1}, workload.Phase{Ops: 400}
			cfg.Load = workload.Load{Mode: mode, Connections: 1, Depth: 1}
			if mode == "open" {
				cfg.Load.Rate = 200 // well below what one worker sustains
			}
			cfg.Preload, cfg.OpPhases = true, true
			rep := run(t, cfg)
			if len(rep.Measurements) != 1 {
				t.Fatalf("%d cells, want 1", len(rep.Measurements))
			}
			c, err := rep.Measurements[0].Cell()
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"client", "network", "server"}
			if mode == "open" {
				want = append(want, "queue")
			}
			checkPhaseSet(t, c, want)
			for _, k := range known {
				if got := c.Phases[k.Phase.String()].P50; !within(got, int64(k.Time), 0.002) {
					t.Errorf("%s p50 %d ns, want %d", k.Phase, got, k.Time)
				}
			}
			var sum int64
			for _, p := range c.Phases {
				sum += p.P50
			}
			if mode == "closed" && !within(sum, c.Latency.P50, 0.02) {
				t.Errorf("phase p50s add up to %d ns, the cell's p50 is %d ns: %+v", sum, c.Latency.P50, c.Phases)
			}
		})
	}
}

// checkPhaseSet: the cell has exactly the phases want, each counted once
// per operation and each with its histogram.
func checkPhaseSet(t *testing.T, c results.Cell, want []string) {
	t.Helper()
	if len(c.Phases) != len(want) {
		t.Fatalf("%s: phases %v, want %v", c.Name(), keys(c.Phases), want)
	}
	for _, name := range want {
		p, ok := c.Phases[name]
		if !ok || p.Count != c.Count || p.Histogram == "" {
			t.Fatalf("%s: phase %s: %+v (cell count %d)", c.Name(), name, p, c.Count)
		}
		h, err := results.DecodeHistogram(p.Histogram)
		if err != nil || h.TotalCount() != c.Count || h.ValueAtQuantile(50) != p.P50 {
			t.Fatalf("%s: phase %s histogram: %v, %d values, p50 %d", c.Name(), name, err, h.TotalCount(), p.P50)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func within(got, want int64, rel float64) bool {
	return math.Abs(float64(got-want)) <= rel*float64(want)
}
