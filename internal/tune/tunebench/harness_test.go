package tunebench

import (
	"slices"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// The harness is sized for the heaviest of the loads, each dimension on
// its own, and never below the workload's own load.
func TestHarnessWorkload(t *testing.T) {
	w := &workload.Workload{Load: workload.Load{Connections: 2, Depth: 2}}
	c := tune.Config{Loads: []tune.Load{{Connections: 16, Depth: 1}, {Connections: 1, Depth: 8}}}
	if hw := HarnessWorkload(&c, w); hw.Load.Connections != 16 || hw.Load.Depth != 8 || w.Load.Connections != 2 {
		t.Errorf("harness load %+v (workload's now %+v), want 16 connections x depth 8 and the workload untouched", hw.Load, w.Load)
	}
	c.Loads = []tune.Load{{Connections: 1, Depth: 1}}
	if hw := HarnessWorkload(&c, w); hw.Load.Connections != 2 || hw.Load.Depth != 2 {
		t.Errorf("harness load %+v, want the workload's 2 x 2", hw.Load)
	}
}

// The server is asked for every size at the deepest load, with keys
// preloaded only when gets are measured, and for no threshold.
func TestLimitCells(t *testing.T) {
	b := bench.Config{Thresholds: []int{4096}, ValueSizes: []int{64}}
	b.Load.Depth = 2
	c := tune.Config{Ops: []rdmakv.Op{rdmakv.OpSet}, Sizes: []int{256, 65536}, Loads: []tune.Load{{Connections: 1, Depth: 8}, {Connections: 4, Depth: 1}}}
	got := LimitCells(&c, b)
	if got.Thresholds != nil || !slices.Equal(got.ValueSizes, c.Sizes) || got.Preload || got.Load.Depth != 8 {
		t.Errorf("set: thresholds %v sizes %v preload %v depth %d", got.Thresholds, got.ValueSizes, got.Preload, got.Load.Depth)
	}
	c.Ops = []rdmakv.Op{rdmakv.OpSet, rdmakv.OpGet}
	if got := LimitCells(&c, b); !got.Preload {
		t.Error("get tuned without a preload")
	}
}
