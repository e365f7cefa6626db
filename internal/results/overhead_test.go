package results

import (
	"strings"
	"testing"
)

func TestOverheadCheckFailsWithinTenTimes(t *testing.T) {
	h := &HarnessCost{OverheadNs: 500}
	near := Cell{Latency: Latency{P50: 3100}}
	k, ok := OverheadCheck(near, h)
	if !ok || k.Pass || k.Name != CheckOverhead {
		t.Fatalf("p50 6.2x the overhead: %+v, made %v", k, ok)
	}
	if !strings.Contains(k.Figure, "p50 3.1µs is 6.2× the harness's own 500ns per operation") {
		t.Errorf("figure %q", k.Figure)
	}
	if k, ok := OverheadCheck(Cell{Latency: Latency{P50: 50_000}}, h); !ok || !k.Pass {
		t.Errorf("p50 100x the overhead: %+v, made %v", k, ok)
	}
	if _, ok := OverheadCheck(near, nil); ok {
		t.Error("a check without a measured overhead")
	}
}

func TestAddRunChecksGivesCellsRunChecks(t *testing.T) {
	run := &Run{Host: Host{Cores: 2}, Harness: &HarnessCost{OverheadNs: 500},
		Transport: Transport{Name: "verbs", ClientPoll: "busy"}}
	cells := []CellLog{
		{Cell: Cell{Op: "get", Latency: Latency{P50: 2000}, Load: CellLoad{Mode: "closed", Connections: 4, Depth: 1}}},
		{Cell: Cell{Op: "set", Latency: Latency{P50: 90_000}, Load: CellLoad{Mode: "closed", Connections: 1, Depth: 1}}},
	}
	AddRunChecks(run, cells)
	AddRunChecks(run, cells) // a rewrite replaces, not adds
	AddWarnings(cells)
	if c := cells[0].Cell; len(c.Checks) != 2 || c.Trusted() || len(c.Warnings) < 2 {
		t.Errorf("oversubscribed cell near the overhead: checks %+v warnings %+v", c.Checks, c.Warnings)
	}
	if c := cells[1].Cell; len(c.Checks) != 2 || !c.Trusted() {
		t.Errorf("one spinner, p50 far above the overhead: checks %+v", c.Checks)
	}
}
