package compare

import (
	"slices"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// judged builds a run of s under dir whose cells are judged as the harness
// judges them, checks and all, on their 1s interval logs.
func judged(t *testing.T, dir string, s resultstest.Spec) *results.Run {
	t.Helper()
	run := build(t, dir, s)
	cells := make([]results.CellLog, len(run.Cells))
	for i, c := range run.Cells {
		c.IntervalNs = int64(time.Second)
		c.DurationNs = int64(s.Intervals)*int64(time.Second) + int64(300*time.Millisecond)
		iv, err := results.CellIntervals(dir, c)
		if err != nil {
			t.Fatal(err)
		}
		cells[i] = results.CellLog{Cell: c, Start: run.Start, Intervals: iv}
	}
	results.AddWarnings(cells)
	for i := range cells {
		run.Cells[i] = cells[i].Cell
	}
	return run
}

func quietSpec(seed uint64) resultstest.Spec {
	s := spec(seed, nil)
	s.Samples, s.Intervals = 20000, 10
	return s
}

func TestAAQuietRunsFlagNothingAndAreTrusted(t *testing.T) {
	da, db := t.TempDir(), t.TempDir()
	a, b := judged(t, da, quietSpec(1)), judged(t, db, quietSpec(2))
	for _, c := range slices.Concat(a.Cells, b.Cells) {
		if len(c.Checks) < 4 {
			t.Fatalf("%s: checks %+v, want stationarity and precision", c.Name(), c.Checks)
		}
	}
	res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect, DirA: da, DirB: db})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		if !c.Trusted() {
			t.Errorf("%s: untrusted %v", c.Key, c.Untrusted)
		}
		for _, m := range c.Metrics {
			if m.Significant {
				t.Errorf("%s %s: %+.1f%% flagged in an A/A comparison", c.Key, m.Name, 100*m.Change)
			}
		}
	}
}

func TestUntrustedRegressionLeftOutUnlessStrict(t *testing.T) {
	a := build(t, "", spec(1, nil))
	b := build(t, "", spec(2, map[string]float64{"get": 1.3}))
	for i, c := range b.Cells {
		if c.Op == "get" {
			b.Cells[i].Checks = []results.Check{{Name: results.CheckPrecision, Method: results.MethodOrderStatistics, Pass: false}}
		}
	}
	res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		if want := c.Key.Op == "get"; c.Trusted() == want {
			t.Errorf("%s: untrusted %v, want untrusted %v", c.Key, c.Untrusted, want)
		}
	}
	if got := res.Regressions(10, false); len(got) != 0 {
		t.Errorf("regressions of untrusted cells counted: %v", got)
	}
	if res.Check(10, true) == nil {
		t.Error("strict: the untrusted 30% regressions did not fail")
	}
}

// With several runs a side, a run's imprecise p99 is part of the spread
// the test over runs already weighs; a stall is not.
func TestSeveralRunsDistrustStallsNotPrecision(t *testing.T) {
	imprecise := results.Check{Name: results.CheckPrecision, Method: results.MethodOrderStatistics, Pass: false}
	stalled := results.Check{Name: results.CheckStationarity, Method: results.MethodIntervalMax, Pass: false}
	runs := []results.Cell{{Checks: []results.Check{imprecise}}, {Checks: []results.Check{imprecise, stalled}}}
	if got := untrusted("B", runs); !slices.Equal(got, []string{"B: stationarity (interval max)"}) {
		t.Errorf("several runs: %v", got)
	}
	if got := untrusted("A", runs[:1]); !slices.Equal(got, []string{"A: precision (binomial order statistics)"}) {
		t.Errorf("one run: %v", got)
	}
}
