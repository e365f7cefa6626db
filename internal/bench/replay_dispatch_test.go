package bench

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The replay dispatcher's tests run in a synctest bubble on tickClock,
// where its waits are exact: a wait due at off is released when the
// clock first reads off-wakeLead or later, that is at releaseTick(off).
// Every off they announce keeps the dispatcher off its nap and spin,
// which fake time cannot end: off-wakeLead is at most the tick it is
// released on, and more than spinWindow after the tick before, the
// latest the clock can read when it is announced (offs in
// (k·tick-475µs, k·tick+25µs]).

// releaseTick is when the dispatcher releases a wait due at off.
func releaseTick(off time.Duration) time.Duration {
	return (off - wakeLead + tick - 1) / tick * tick
}

// replayRig is a replay dispatcher over W workers, running, its
// releases logged as the workers see them.
type replayRig struct {
	t    *testing.T
	base epoch
	ws   []*worker
	d    *replayDispatcher
	stop atomic.Bool
	done chan struct{}
	dwg  sync.WaitGroup
	mu   sync.Mutex
	log  []release
}

type release struct {
	worker  int
	off, at time.Duration
}

// newReplayRig must be called in a bubble; scanned, if not nil, becomes
// the dispatcher's hook.
func newReplayRig(t *testing.T, W int, scanned func(r *replayRig, i int)) *replayRig {
	r := &replayRig{t: t, base: newEpochOn(tickClock(tick)), done: make(chan struct{})}
	for i := range W {
		w := &worker{id: i, workers: W, local: i, stop: &r.stop, done: r.done}
		w.init()
		r.ws = append(r.ws, w)
	}
	r.d = newReplayDispatcher(r.base, r.ws, r.done, &r.stop)
	if scanned != nil {
		r.d.scanned = func(i int) { scanned(r, i) }
	}
	r.dwg.Go(r.d.run)
	return r
}

// waitFor announces worker i's wait for off, blocks until the dispatcher
// releases it and logs when: a worker's await, without the spin (which
// would read the clock until off, past a release up to wakeLead early).
func (r *replayRig) waitFor(i int, off time.Duration) {
	r.d.announce(i, int64(off))
	for r.d.waits[i].Load() != noWait {
		<-r.ws[i].wake
	}
	r.mu.Lock()
	r.log = append(r.log, release{i, off, r.base.since()})
	r.mu.Unlock()
}

// close ends the dispatcher and checks every release was at its tick, in
// the order of the ticks.
func (r *replayRig) close() []release {
	r.d.end()
	r.dwg.Wait()
	var last time.Duration
	for _, x := range r.log {
		if x.at != releaseTick(x.off) || x.at < last {
			r.t.Errorf("worker %d: wait for %v released at %v after one at %v; want at %v, in due order", x.worker, x.off, x.at, last, releaseTick(x.off))
		}
		last = x.at
	}
	return r.log
}

// Workers waiting at once, several on the same tick and some inside the
// wakeLead of one, are each released at the first tick within wakeLead
// of their wait, in due order, never earlier.
func TestReplayDispatcherDueOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const W, rounds = 5, 6
		r := newReplayRig(t, W, nil)
		shifts := []time.Duration{0, wakeLead, -100 * time.Microsecond, -400 * time.Microsecond}
		var wg sync.WaitGroup
		for i := range W {
			wg.Go(func() {
				for j := range rounds {
					k := time.Duration(1 + 2*j + i%2)
					r.waitFor(i, k*tick+shifts[(i+j)%len(shifts)])
				}
			})
		}
		wg.Wait()
		if n := len(r.close()); n != W*rounds {
			t.Errorf("%d releases, want %d", n, W*rounds)
		}
	})
}

// A wait announced while the dispatcher sleeps towards a later one is
// released first, on time.
func TestReplayDispatcherEarlierWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newReplayRig(t, 2, nil)
		var wg sync.WaitGroup
		wg.Go(func() { r.waitFor(0, 50*tick) })
		synctest.Wait() // the dispatcher sleeps towards 50 ticks
		wg.Go(func() { r.waitFor(1, 3*tick) })
		wg.Wait()
		if log := r.close(); len(log) != 2 || log[0].worker != 1 {
			t.Errorf("releases %+v, want worker 1's first", log)
		}
	})
}

// A wait announced while the dispatcher scans, by a worker the scan has
// passed, is not lost: the dispatcher scans again rather than sleep
// towards the wait it had (or none). Here worker 0 announces right after
// the scan that releases worker 1 has read its wait.
func TestReplayDispatcherWaitDuringScan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var once sync.Once
		late := make(chan struct{})
		r := newReplayRig(t, 3, func(r *replayRig, i int) {
			if i == 0 && r.base.since() >= 5*tick {
				once.Do(func() {
					close(late)
					for r.d.waits[0].Load() == noWait { // worker 0 announces now
						synctest.Wait()
					}
				})
			}
		})
		var wg sync.WaitGroup
		wg.Go(func() { r.waitFor(1, 5*tick) })
		wg.Go(func() { r.waitFor(2, 40*tick) })
		wg.Go(func() {
			<-late
			r.waitFor(0, 8*tick)
		})
		wg.Wait()
		if log := r.close(); len(log) != 3 || log[1].worker != 0 {
			t.Errorf("releases %+v, want worker 0's second", log)
		}
	})
}

// An interrupt ends the dispatcher and every worker waiting for a
// request far ahead; a phase's end (end closing) ends the workers, and
// then end() the dispatcher. synctest.Test fails if any is left.
func TestReplayDispatcherInterrupt(t *testing.T) {
	for _, interrupt := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			r := newReplayRig(t, 3, nil)
			end := make(chan struct{})
			var wg sync.WaitGroup
			var got atomic.Int32
			for _, w := range r.ws {
				wg.Go(func() {
					if w.awaitRelease(r.d, r.base, int64(time.Hour), end) {
						got.Add(1)
					}
				})
			}
			synctest.Wait()
			if interrupt {
				r.stop.Store(true)
				close(r.done)
			} else {
				close(end)
			}
			wg.Wait()
			if !interrupt {
				r.d.end()
			}
			r.dwg.Wait()
			if got.Load() != 0 {
				t.Errorf("interrupt %v: %d waits for an hour ahead released", interrupt, got.Load())
			}
			for i := range r.d.waits {
				if r.d.waits[i].Load() != noWait {
					t.Errorf("worker %d left its wait announced", i)
				}
			}
		})
	}
}
