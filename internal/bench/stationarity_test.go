package bench_test

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/workload"
)

// stopRun runs 6.5 s of fake time of sets, one at a time, on a fake of
// 1 ms operations that stops for stop at the start of every second, and
// returns the cell's checks and the phase's warnings.
func stopRun(t *testing.T, stop time.Duration) ([]results.Check, []results.Warning) {
	f := &benchtest.Fake{Latency: time.Millisecond, StopEvery: time.Second, StopFor: stop}
	c, m := untilRun(t, f, workload.Phase{}, workload.Phase{Duration: workload.Duration(6500 * time.Millisecond)})
	hs, err := bench.DecodeIntervals(m.Intervals)
	if err != nil {
		t.Fatal(err)
	}
	return results.CellChecks(c, m.Start, hs), bench.PhaseWarnings([]bench.Measurement{m})
}

// A server stopped for 200 ms every second: each second's p50 and rate
// are the same, so no trend test sees it, but every second holds an
// operation that waited out the stop, and stationarity fails. Without the
// stop every check passes.
func TestStopEverySecondFailsStationarity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		checks, warns := stopRun(t, 200*time.Millisecond)
		var failed []string
		for _, k := range checks {
			if !k.Pass {
				failed = append(failed, k.Name+"/"+k.Method)
			}
		}
		if want := []string{results.CheckStationarity + "/" + results.MethodIntervalMax}; !slices.Equal(failed, want) {
			t.Errorf("failed %v, want %v: %+v", failed, want, checks)
		}
		if !slices.ContainsFunc(warns, func(w results.Warning) bool { return w.Kind == results.WarnCheckPrefix+results.CheckStationarity }) {
			t.Errorf("warnings %+v: no failed stationarity check", warns)
		}
		for _, k := range checks {
			t.Logf("%s/%s: %s", k.Name, k.Method, k.Figure)
		}
		checks, _ = stopRun(t, 0)
		if len(checks) < 4 || slices.ContainsFunc(checks, func(k results.Check) bool { return !k.Pass }) {
			t.Errorf("without the stop: %+v, want every check run and passed", checks)
		}
	})
}
