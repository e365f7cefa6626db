package bench

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/workload"
)

// hangGuard fails the test if ch is not closed within a minute; it bounds
// a hang, it does not time the code.
func hangGuard(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("%s: hung", what)
	}
}

// released drives a dispatcher with W waiting workers (each waiting the way
// runOpen does, on its own slots n = w mod W) and returns, per slot, the
// offset at which its worker saw it released.
func released(t *testing.T, rate float64, total int64, W int) []time.Duration {
	t.Helper()
	var stop atomic.Bool
	pacer := ConstantPacer{Rate: rate}
	ws := make([]*worker, W)
	wake := make([]chan struct{}, W)
	for i := range ws {
		ws[i] = &worker{id: i, workers: W, stop: &stop}
		ws[i].init()
		wake[i] = ws[i].wake
	}
	base := newEpoch()
	d := newDispatcher(base, pacer, total, 0, wake, nil, &stop)
	at := make([]time.Duration, total)
	finished := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		wg.Go(d.run)
		var wwg sync.WaitGroup
		for _, w := range ws {
			wwg.Go(func() {
				for g := int64(w.id); g < total; g += int64(W) {
					off, _ := pacer.Offset(g)
					if !w.await(d, g, base, off) {
						t.Errorf("slot %d: await gave up without an interrupt", g)
						return
					}
					at[g] = base.since()
				}
			})
		}
		wwg.Wait()
		d.end()
		wg.Wait()
		close(finished)
	}()
	hangGuard(t, finished, "dispatch")
	return at
}

// Every slot is released, and never before its intended start: a worker
// woken early would issue ahead of the schedule. Rates from one far below
// the spin window (each wait sleeps first) to far above it (the dispatcher
// is always behind, and workers find their slots released) exercise both
// ways of waiting, and many workers per slot exercise lost wakeups.
func TestDispatcherNeverEarly(t *testing.T) {
	for _, c := range []struct {
		rate  float64
		total int64
		W     int
	}{{200, 6, 2}, {20000, 400, 3}, {1e6, 20000, 8}, {1e9, 5000, 4}} {
		at := released(t, c.rate, c.total, c.W)
		for g, a := range at {
			off, _ := ConstantPacer{Rate: c.rate}.Offset(int64(g))
			if a < off {
				t.Fatalf("rate %g: slot %d seen released at %v, before its intended start %v", c.rate, g, a, off)
			}
		}
	}
}

// A worker that is stuck (here: never waits, so its wake stays full) must
// not hold up the releases of the others: the dispatcher never blocks on a
// worker.
func TestDispatcherStuckWorker(t *testing.T) {
	var stop atomic.Bool
	const W, total = 2, 2000
	pacer := ConstantPacer{Rate: 1e6}
	stuck, live := make(chan struct{}, 1), make(chan struct{}, 1)
	w := &worker{id: 1, workers: W, stop: &stop, wake: live}
	base := newEpoch()
	d := newDispatcher(base, pacer, total, 0, []chan struct{}{stuck, live}, nil, &stop)
	finished := make(chan struct{})
	go func() {
		go d.run()
		for g := int64(1); g < total; g += W {
			off, _ := pacer.Offset(g)
			if !w.await(d, g, base, off) {
				t.Error("await gave up without an interrupt")
				break
			}
		}
		close(finished)
	}()
	hangGuard(t, finished, "releases behind a stuck worker")
	d.end()
}

// An interrupt ends both the dispatcher's wait and the workers' waits for
// slots far in the future.
func TestDispatcherInterrupt(t *testing.T) {
	var stop atomic.Bool
	done := make(chan struct{})
	pacer := PacerFunc(func(n int64) (time.Duration, bool) { return time.Duration(n) * time.Hour, true })
	w := &worker{id: 0, workers: 1, stop: &stop, done: done}
	w.init()
	base := newEpoch()
	d := newDispatcher(base, pacer, -1, 0, []chan struct{}{w.wake}, done, &stop)
	var gotSlot1 atomic.Bool
	finished := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		wg.Go(d.run)
		wg.Go(func() {
			if !w.await(d, 0, base, 0) {
				t.Error("slot 0 (due at once) not released")
			}
			gotSlot1.Store(w.await(d, 1, base, time.Hour))
		})
		// Interrupt once slot 0 is out, while both wait for slot 1.
		for d.due.Load() < 0 {
			time.Sleep(time.Millisecond)
		}
		stop.Store(true)
		close(done)
		wg.Wait()
		close(finished)
	}()
	hangGuard(t, finished, "interrupt")
	if gotSlot1.Load() {
		t.Error("slot 1 (due in an hour) released after an interrupt")
	}
}

// The precise open loop allocates nothing per operation: a run of many
// operations allocates what a run of few does (the phase's setup).
func TestOpenLoopZeroAllocs(t *testing.T) {
	w, _ := overheadWorker(t, testKeys)
	openRun := func(n int64) {
		base := newEpoch()
		pacer := ConstantPacer{Rate: 200000}
		d := newDispatcher(base, pacer, n, 0, []chan struct{}{w.wake}, nil, w.stop)
		fin := make(chan struct{})
		go func() { d.run(); close(fin) }()
		w.runOpen(base, pacer, n, 0, d)
		d.end()
		<-fin
	}
	openRun(1000) // first use allocates the histograms
	few := testing.AllocsPerRun(20, func() { openRun(100) })
	many := testing.AllocsPerRun(20, func() { openRun(2100) })
	t.Logf("allocations per run: %v for 100 operations, %v for 2100", few, many)
	if perOp := (many - few) / 2000; perOp > 0.01 {
		t.Errorf("%v allocations per run of 100 operations, %v per run of 2100: %.3f per operation, want 0", few, many, perOp)
	}
}

func TestConfigPacing(t *testing.T) {
	for _, c := range []struct {
		mode, pacing, err string
	}{
		{"open", "", ""},
		{"open", PacingPrecise, ""},
		{"open", PacingCoarse, ""},
		{"open", "fast", `load.pacing "fast": want precise or coarse`},
		{"closed", PacingCoarse, `load.pacing "coarse": only used with mode open or a trace at a speed`},
	} {
		cfg := Config{
			Keys: testKeys, ValueSizes: []int{1}, Thresholds: []int{1},
			Mix: workload.Mix{Get: 1}, Measure: workload.Phase{Ops: 1}, Dialer: DialerFunc(nil), Codec: Values{},
		}
		cfg.Load.Mode, cfg.Load.Pacing, cfg.Load.Rate, cfg.Load.Connections, cfg.Load.Depth = c.mode, c.pacing, 1, 1, 1
		if c.mode == "closed" {
			cfg.Load.Rate = 0
		}
		err := cfg.Validate()
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s/%q: %v", c.mode, c.pacing, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s/%q: error %v, want %q", c.mode, c.pacing, err, c.err)
		}
	}
}
