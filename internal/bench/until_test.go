package bench_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/workload"
)

// untilRun runs one set-only cell on fake time (every operation of a
// steady fake takes exactly its latency) and returns its one cell and
// its measurement.
func untilRun(t *testing.T, f *benchtest.Fake, warmup, measure workload.Phase) (results.Cell, bench.Measurement) {
	t.Helper()
	cfg := baseConfig(f)
	cfg.Mix = workload.Mix{Set: 1}
	cfg.Load = workload.Load{Mode: "closed", Connections: 1, Depth: 1}
	cfg.Warmup, cfg.Measure = warmup, measure
	bench.SetClock(&cfg, bench.TickClock(1))
	rep := run(t, cfg)
	if len(rep.Measurements) != 1 {
		t.Fatalf("%d measurements, want 1", len(rep.Measurements))
	}
	m := rep.Measurements[0]
	c, err := m.Cell()
	if err != nil {
		t.Fatal(err)
	}
	return c, m
}

func hasWarning(ws []results.Warning, kind string) bool {
	for _, w := range ws {
		if w.Kind == kind {
			return true
		}
	}
	return false
}

// A quiet target (every operation 1 ms) knows its p99 exactly once the
// first second holds enough operations beyond it: the cell ends after
// that second, far before its one-minute cap, and says why.
func TestUntilPrecisionEndsQuietCell(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, m := untilRun(t, &benchtest.Fake{Latency: time.Millisecond}, workload.Phase{},
			workload.Phase{Until: &workload.Until{P99CI: 0.05}, MaxDuration: workload.Duration(time.Minute)})
		e := c.MeasureEnd
		if e == nil || e.Reason != results.EndPrecision || !e.Until {
			t.Fatalf("measure end %+v, want precision", e)
		}
		if m.Duration < time.Second || m.Duration > 2*time.Second {
			t.Errorf("measured %v: want the first interval and no more than the next", m.Duration)
		}
		if e.DurationNs != int64(m.Duration) || e.CIHalfWidth > 0.05 {
			t.Errorf("end %+v, phase %v", e, m.Duration)
		}
		if c.WarmupEnd != nil || hasWarning(m.Warnings(), results.WarnUntilNotMet) {
			t.Errorf("warmup end %+v, warnings %v", c.WarmupEnd, m.Warnings())
		}
	})
}

// A duration given beside until is the least the phase runs.
func TestUntilHonoursTheFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, m := untilRun(t, &benchtest.Fake{Latency: time.Millisecond}, workload.Phase{},
			workload.Phase{Until: &workload.Until{P99CI: 0.05}, Duration: workload.Duration(3 * time.Second),
				MaxDuration: workload.Duration(time.Minute)})
		if m.Duration < 3*time.Second || m.Duration > 4*time.Second || m.MeasureEnd.Reason != results.EndPrecision {
			t.Errorf("measured %v, end %+v: want precision after the 3 s floor", m.Duration, m.MeasureEnd)
		}
	})
}

// Caps shorter than the precision needs end the phase, which says so, and
// the cell warns that its until was not met.
func TestUntilCapEndsShortCell(t *testing.T) {
	for _, tc := range []struct {
		name  string
		phase workload.Phase
		want  string
	}{
		{"max_ops", workload.Phase{Until: &workload.Until{P99CI: 0.05}, MaxOps: 500}, results.EndMaxOps},
		{"max_duration", workload.Phase{Until: &workload.Until{P99CI: 0.05}, MaxDuration: workload.Duration(500 * time.Millisecond)}, results.EndMaxDuration},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, m := untilRun(t, &benchtest.Fake{Latency: time.Millisecond}, workload.Phase{}, tc.phase)
				if e := c.MeasureEnd; e == nil || e.Reason != tc.want || !e.Capped() {
					t.Fatalf("measure end %+v, want %s", e, tc.want)
				}
				if !hasWarning(m.Warnings(), results.WarnUntilNotMet) {
					t.Errorf("warnings %v, want %s", m.Warnings(), results.WarnUntilNotMet)
				}
			})
		})
	}
}

// A target that always takes a different time by the operation has a p99
// no interval can pin within 0.1%: the phase ends at its cap.
func TestUntilNoisyCellEndsAtCap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noisy := func(n int64) time.Duration { return time.Duration(n%97) * 20 * time.Microsecond }
		c, _ := untilRun(t, &benchtest.Fake{Latency: 100 * time.Microsecond, LatencyOf: noisy}, workload.Phase{},
			workload.Phase{Until: &workload.Until{P99CI: 0.001}, MaxDuration: workload.Duration(3 * time.Second)})
		if e := c.MeasureEnd; e.Reason != results.EndMaxDuration || e.CIHalfWidth <= 0.001 {
			t.Errorf("measure end %+v, want max_duration with the interval wider than asked", e)
		}
	})
}

// A target slow at first and settling to 1 ms: the warmup lasts until the
// per-second p50 stops falling, well before its cap, and the measured
// cell says what ended it.
func TestWarmupUntilStable(t *testing.T) {
	const falling = 2000 // operations, from 3 ms down to 1 ms
	slowFirst := func(n int64) time.Duration {
		if n >= falling {
			return 0
		}
		return time.Duration(falling-n) * time.Millisecond / 1000
	}
	var fall time.Duration
	for n := int64(1); n < falling; n++ {
		fall += time.Millisecond + slowFirst(n)
	}
	synctest.Test(t, func(t *testing.T) {
		c, _ := untilRun(t, &benchtest.Fake{Latency: time.Millisecond, LatencyOf: slowFirst},
			workload.Phase{Until: &workload.Until{Stable: true}, MaxDuration: workload.Duration(time.Minute)},
			workload.Phase{Duration: workload.Duration(time.Second)})
		e := c.WarmupEnd
		if e == nil || e.Reason != results.EndStable {
			t.Fatalf("warmup end %+v, want stable", e)
		}
		if d := time.Duration(e.DurationNs); d < fall || d > fall+2*bench.StableWindow*time.Second {
			t.Errorf("warmup took %v; the p50 fell for %v and a window is %d s", d, fall, bench.StableWindow)
		}
		if c.MeasureEnd == nil || c.MeasureEnd.Reason != results.EndDuration || c.MeasureEnd.Until {
			t.Errorf("measure end %+v, want duration", c.MeasureEnd)
		}
	})
}
