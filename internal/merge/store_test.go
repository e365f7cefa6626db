package merge

import (
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// A merge of a baseline's ranks keeps the store they measured: the run's
// target, and each merged cell's store, by which it is named, in the
// merged cells and in the ranks' figures.
func TestMergeKeepsTheStore(t *testing.T) {
	var parts []Part
	for i := range 2 {
		dir := t.TempDir()
		run, err := resultstest.Build(dir, resultstest.Spec{Ops: []string{"get", "set"}, Sizes: []int{64, 4096},
			Samples: 1000, Intervals: 2, Seed: uint64(i + 1), Model: resultstest.Default, Kind: "redis", ServerVersion: "7.0.15"})
		if err != nil {
			t.Fatal(err)
		}
		run.Rank = &results.Rank{Rank: i, Ranks: 2}
		parts = append(parts, Part{Run: run, Dir: dir})
	}
	run, logs, _, err := Runs(parts)
	if err != nil {
		t.Fatal(err)
	}
	if run.TargetKind() != "redis" || run.TargetLabel() != "redis 7.0.15" {
		t.Errorf("merged target %+v", run.Target)
	}
	for _, cl := range logs {
		if c := cl.Cell; c.Store != "redis" || c.Protocol != "eager" || !c.Baseline() || !strings.HasPrefix(c.Name(), "redis ") {
			t.Errorf("merged cell %s: store %q protocol %q", c.Name(), c.Store, c.Protocol)
		}
	}
	for _, rc := range run.Ranks[1].Cells {
		if !strings.HasPrefix(rc.Name, "redis ") || !strings.HasSuffix(rc.Name, "/t=0B/eager") {
			t.Errorf("rank 1's cell %q", rc.Name)
		}
	}
}
