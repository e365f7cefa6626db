package bench_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/workload"
)

// delayConn is a connection whose sets each take the delay it draws.
type delayConn struct {
	bench.Conn
	delay func() time.Duration
}

func (c delayConn) Set(ctx context.Context, key, value []byte) (bench.Protocol, error) {
	time.Sleep(c.delay())
	return c.Conn.Set(ctx, key, value)
}

// delayConfig is a run of 2000 sets under load, each taking what delay
// draws, timed on fake time (bench.TickClock).
func delayConfig(load workload.Load, delay func() time.Duration) bench.Config {
	f := &benchtest.Fake{}
	cfg := baseConfig(f)
	cfg.Mix = workload.Mix{Set: 1}
	cfg.Load = load
	cfg.Dialer = bench.DialerFunc(func(ctx context.Context, th int) (bench.Conn, error) {
		c, err := f.Dial(ctx, th)
		return delayConn{c, delay}, err
	})
	bench.SetClock(&cfg, bench.TickClock(1))
	return cfg
}

// delayRun runs 2000 sets on one worker, each taking what delay draws,
// on fake time (it must be called in a bubble), and returns the cell's
// checks. An open loop runs on bench.TickClock, on which a precise
// dispatcher waits on its timer rather than spinning.
func delayRun(t *testing.T, load workload.Load, delay func() time.Duration) []results.Check {
	t.Helper()
	cfg := delayConfig(load, delay)
	// A host with no readings gets no host checks: these are the
	// samples' checks, whatever else the test machine runs.
	bench.SetHostRoot(&cfg, t.TempDir())
	if load.Mode == "open" {
		bench.SetClock(&cfg, bench.TickClock(bench.Tick))
	}
	ms := run(t, cfg).Measurements
	if len(ms) != 1 {
		t.Fatalf("%d measurements, want 1", len(ms))
	}
	c, err := ms[0].Cell()
	if err != nil {
		t.Fatal(err)
	}
	return c.Checks
}

func check(t *testing.T, ks []results.Check, name string) results.Check {
	t.Helper()
	for _, k := range ks {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("no %s check among %+v", name, ks)
	return results.Check{}
}

var closedLoop = workload.Load{Mode: "closed", Connections: 1, Depth: 1}

// ar1 draws latencies around 500µs whose logarithms follow an AR(1)
// series of coefficient phi, so that consecutive ones correlate by about
// phi in rank too.
func ar1(r *rand.Rand, phi float64) func() time.Duration {
	x := 0.0
	return func() time.Duration {
		x = phi*x + math.Sqrt(1-phi*phi)*r.NormFloat64()
		return time.Duration(500_000 * math.Exp(0.5*x))
	}
}

// Consecutive latencies that follow each other by 0.5, as a closed loop
// carrying its queue does, pass independence (the precision check then
// takes their worth into account); by 0.9, the cell is one slow stretch
// after another, and fails.
func TestIndependenceCheckBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 3))
		for _, c := range []struct {
			phi, lo, hi float64
			pass        bool
		}{{0.5, 0.4, 0.6, true}, {0.92, 0.85, 0.95, false}} {
			k := check(t, delayRun(t, closedLoop, ar1(r, c.phi)), results.CheckIndependence)
			if k.Pass != c.pass || k.Statistic < c.lo || k.Statistic > c.hi {
				t.Errorf("AR(1) at %g: %+v, want rho in [%g, %g] and pass %v", c.phi, k, c.lo, c.hi, c.pass)
			}
		}
	})
}

// Latencies drawn independently pass the independence check; latencies
// that grow through stretches of 100 operations, as behind a queue that
// builds up and drains, fail it.
func TestIndependenceCheck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 1))
		quiet := func() time.Duration { return time.Duration(100_000 + r.IntN(900_000)) }
		k := check(t, delayRun(t, closedLoop, quiet), results.CheckIndependence)
		if !k.Pass || k.P == nil || k.Method != "spearman lag-1" {
			t.Errorf("independent latencies: %+v", k)
		}
		n := 0
		queue := func() time.Duration {
			n++
			return time.Duration(100_000 + 9_000*(n%100) + r.IntN(10_000))
		}
		if k := check(t, delayRun(t, closedLoop, queue), results.CheckIndependence); k.Pass || k.Statistic < 0.9 {
			t.Errorf("latencies of a queue building up: %+v", k)
		}
	})
}

// An open loop the target keeps up with passes the inter-arrival and
// late-start checks; one whose target takes three intervals per
// operation falls behind its schedule and fails both. One intended
// start a tick. A closed loop
// has no schedule to check.
func TestScheduleChecks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, pacing := range []string{bench.PacingPrecise, bench.PacingCoarse} {
			open := workload.Load{Mode: "open", Connections: 1, Depth: 1, Rate: float64(time.Second / bench.Tick), Pacing: pacing}
			keepUp := delayRun(t, open, func() time.Duration { return bench.Tick / 10 })
			for _, name := range []string{results.CheckInterarrival, results.CheckLateStarts} {
				if k := check(t, keepUp, name); !k.Pass {
					t.Errorf("%s, sustainable rate: %+v", pacing, k)
				}
			}
			behind := delayRun(t, open, func() time.Duration { return 3 * bench.Tick })
			for _, name := range []string{results.CheckInterarrival, results.CheckLateStarts} {
				if k := check(t, behind, name); k.Pass || k.Statistic < 0.9 {
					t.Errorf("%s, target slower than the schedule: %+v", pacing, k)
				}
			}
			// Its backlog grows, and each latency with it: consecutive
			// latencies are no longer independent either.
			if ws := results.CheckWarnings(behind); len(ws) != 3 {
				t.Errorf("%s: warnings %+v, want the three failed checks", pacing, ws)
			}
		}
		for _, k := range delayRun(t, closedLoop, func() time.Duration { return time.Millisecond }) {
			if k.Name != results.CheckIndependence {
				t.Errorf("closed loop checked %s", k.Name)
			}
		}
	})
}
