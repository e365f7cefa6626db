package results

import (
	"slices"
	"testing"
)

// fixtureWarnings judges every cell of a stored run as its writer would;
// the fixtures keep no interval logs, so rates get no verdict.
func fixtureWarnings(t *testing.T, file string) []Cell {
	t.Helper()
	run, _, err := Open(file)
	if err != nil {
		t.Fatal(err)
	}
	cells := make([]CellLog, len(run.Cells))
	for i, c := range run.Cells {
		cells[i] = CellLog{Cell: c}
	}
	AddWarnings(cells)
	out := make([]Cell, len(cells))
	for i, cl := range cells {
		out[i] = cl.Cell
	}
	return out
}

func kinds(c Cell) []string {
	var k []string
	for _, w := range c.Warnings {
		k = append(k, w.Kind)
	}
	return k
}

// A Soft-RoCE sweep whose operations waited on retransmission timers: most
// of its bad cells are flagged, the 7.46ms 64 B get among them.
func TestWarningsSoftRoCESweep(t *testing.T) {
	cells := fixtureWarnings(t, "testdata/threshold-sweep-rdma.json")
	// Bad, by a yardstick none of the checks uses: a mean above three
	// times the fastest operation, one operation in flight.
	bad, caught := 0, 0
	seen := map[string]int{}
	for _, c := range cells {
		for _, k := range kinds(c) {
			seen[k]++
		}
		if c.Latency.Mean > 3*float64(c.Latency.Min) {
			bad++
			if len(c.Warnings) > 0 {
				caught++
			}
		}
		if c.Name() == "get/64B/t=1KiB/eager" && !slices.Contains(kinds(c), WarnDisagreesAcrossThresholds) {
			t.Errorf("%s (p50 7.46ms, 46 to 77µs at the other thresholds): %+v", c.Name(), c.Warnings)
		}
	}
	if bad < 50 || 3*caught < 2*bad {
		t.Errorf("%d of %d bad cells flagged, want at least two thirds", caught, bad)
	}
	for _, k := range []string{WarnBimodal, WarnP50FarAboveMin, WarnDisagreesAcrossThresholds} {
		if seen[k] == 0 {
			t.Errorf("no %s warning in the Soft-RoCE sweep (%v)", k, seen)
		}
	}
	t.Logf("%d of %d bad cells flagged; warnings by kind %v", caught, bad, seen)
}

// The healthy TCP sweep of the same workload earns no warning but the
// tail precision check of its two 1 MiB cells at threshold 16 KiB, whose 3.4k
// and 3.6k operations leave their p99 ±22% and ±24%.
func TestWarningsTCPSweep(t *testing.T) {
	short := []string{"get/1MiB/t=16KiB/rendezvous", "set/1MiB/t=16KiB/rendezvous"}
	for _, c := range fixtureWarnings(t, "testdata/threshold-sweep-tcp.json") {
		want := []string(nil)
		if slices.Contains(short, c.Name()) {
			want = []string{WarnCheckPrefix + CheckTailPrecision}
		}
		if !slices.Equal(kinds(c), want) {
			t.Errorf("%s: %+v, want %v", c.Name(), c.Warnings, want)
		}
	}
}
