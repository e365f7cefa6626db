package tunebench

import (
	"context"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

func TestUntilEnough(t *testing.T) {
	sec := workload.Duration(time.Second)
	own := &workload.Until{P99CI: 0.05}
	for _, tc := range []struct {
		name   string
		ph     workload.Phase
		minOps int64
		want   workload.Phase
	}{
		{"no minimum", workload.Phase{Duration: sec}, 0, workload.Phase{Duration: sec}},
		{"timed", workload.Phase{Duration: sec}, 2000,
			workload.Phase{Duration: sec, Until: &workload.Until{MinOps: 2000}, MaxDuration: MaxStretch * sec}},
		{"counted", workload.Phase{Ops: 100}, 2000, workload.Phase{Ops: 100}},
		{"own until", workload.Phase{Until: own, MaxOps: 9000}, 2000,
			workload.Phase{Until: &workload.Until{P99CI: 0.05, MinOps: 2000}, MaxOps: 9000}},
	} {
		got := untilEnough(tc.ph, tc.minOps)
		if got.Duration != tc.want.Duration || got.Ops != tc.want.Ops || got.MaxDuration != tc.want.MaxDuration ||
			got.MaxOps != tc.want.MaxOps || (got.Until == nil) != (tc.want.Until == nil) || (got.Until != nil && *got.Until != *tc.want.Until) {
			t.Errorf("%s: %+v (until %+v), want %+v (until %+v)", tc.name, got, got.Until, tc.want, tc.want.Until)
		}
	}
	if own.MinOps != 0 {
		t.Error("the workload's until was changed in place")
	}
}

// A target too slow for a p99's 2000 operations in the workload's one
// second (each operation sleeps at least 1 ms) is measured on until it
// has them, within the cap, instead of failing the tune.
func TestSlowTargetMeasuresUntilEnough(t *testing.T) {
	cfg := benchConfig(&benchtest.Fake{Latency: time.Millisecond})
	cfg.Measure = workload.Phase{Duration: workload.Duration(time.Second)}
	m := &Measurer{Config: cfg}
	need := (&tune.Config{Objective: tune.ObjP99}).MinOps()
	s, err := m.Measure(context.Background(), tune.Request{Op: rdmakv.OpSet, Size: 64, Protocol: tune.Eager,
		Load: tune.Load{Connections: 1, Depth: 1}, MinOps: need})
	if err != nil {
		t.Fatal(err)
	}
	if s.Count < need {
		t.Errorf("%d operations measured, want at least %d", s.Count, need)
	}
	for _, w := range s.Warnings {
		if w.Kind == results.WarnUntilNotMet {
			t.Errorf("warning %s", w.Message)
		}
	}
}
