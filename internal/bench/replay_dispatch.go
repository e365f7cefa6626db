package bench

import (
	"math"
	"runtime"
	"sync/atomic"
	"time"
)

// noWait is a worker's wait when it waits for no release, and the
// dispatcher's target when it has none: later than any request.
const noWait = math.MaxInt64

// replayDispatcher paces a replay precisely, as dispatcher paces an open
// loop. It cannot walk a schedule of slots: a replay's requests reach
// the workers through their connection's lane, in the order the workers
// take them. So each worker announces what it waits for (its wait: the
// intended start of the request it holds) and blocks on its wake
// channel; the dispatcher sleeps until wakeLead before the earliest wait
// announced and wakes every worker due by then.
//
// A wait announced while the dispatcher sleeps towards a later one
// pokes it: it scans again. While it scans its target is noWait, so any
// wait announced then pokes too, and none is lost to a scan that had
// passed its worker already. A poke ends the timer at once, a spin at
// its next turn, a nap only when it ends: naps are cut to napSlack, so a
// wait announced less than about 250 µs ahead, while the dispatcher naps
// towards a later one, may be released that much late (coarse pacing
// would be up to 1 ms late).
type replayDispatcher struct {
	waiter
	waits []paddedWait    // per worker (its local index); noWait: none
	wake  []chan struct{} // per worker, capacity 1
	poke  chan struct{}   // capacity 1: a wait earlier than target came
	// target is the wait the dispatcher sleeps towards; noWait while it
	// scans or when no worker waits.
	target atomic.Int64
	// scanned, in tests, runs after the scan has read worker i's wait.
	scanned func(i int)
}

// paddedWait is a worker's wait on a cache line of its own: each worker
// writes its own per request.
type paddedWait struct {
	atomic.Int64
	_ [56]byte
}

func newReplayDispatcher(base epoch, ws []*worker, done <-chan struct{}, stop *atomic.Bool) *replayDispatcher {
	d := &replayDispatcher{waiter: newWaiter(base, done, stop), waits: make([]paddedWait, len(ws)),
		wake: make([]chan struct{}, len(ws)), poke: make(chan struct{}, 1)}
	for i, w := range ws {
		d.waits[i].Store(noWait)
		d.wake[i] = w.wake
	}
	d.target.Store(noWait)
	drainWakes(d.wake)
	return d
}

// run releases the workers' waits as they come due, until the run is
// interrupted or end is called.
func (d *replayDispatcher) run() {
	for {
		select {
		case <-d.poke: // the scan below sees what it announced
		default:
		}
		d.target.Store(noWait)
		next := d.release()
		d.target.Store(next)
		// With no wait (next is noWait), only a poke or a stop ends this.
		if d.waitUntil(time.Duration(next)-wakeLead, d.poke) == waitStopped {
			return
		}
	}
}

// release wakes every worker whose wait is due within wakeLead, clearing
// its wait, and returns the earliest wait left (noWait: none). It scans
// every worker, an atomic load each: there are tens to hundreds
// (connections x depth), so a scan costs far less than the wakes and
// allocates nothing, and no index of waits needs keeping in step with
// the workers.
func (d *replayDispatcher) release() int64 {
	due := int64(d.base.since() + wakeLead)
	next, woke := int64(noWait), false
	for i := range d.waits {
		at := d.waits[i].Load()
		if d.scanned != nil {
			d.scanned(i)
		}
		switch {
		case at == noWait:
		case at <= due:
			if d.waits[i].CompareAndSwap(at, noWait) {
				select {
				case d.wake[i] <- struct{}{}:
				default: // a stale wake is pending; the worker checks its wait
				}
				woke = true
			}
		default:
			next = min(next, at)
		}
	}
	if woke {
		// The woken workers wait in this P's run queue; let them run now
		// rather than when another P gets round to stealing them.
		runtime.Gosched()
	}
	return next
}

// announce makes off worker i's wait, poking the dispatcher when it
// sleeps towards a later one (or scans).
func (d *replayDispatcher) announce(i int, off int64) {
	d.waits[i].Store(off)
	if off < d.target.Load() {
		select {
		case d.poke <- struct{}{}:
		default: // a poke is pending: the dispatcher will scan anyway
		}
	}
}

// awaitRelease blocks worker w until off, its request's intended start,
// and reports whether it got there; false on interrupt or when end
// closes. It announces its wait and sleeps on its wake channel until the
// dispatcher clears the wait, then spins out the wakeLead and records
// its issue delay, as await does. A worker already late goes at once.
func (w *worker) awaitRelease(d *replayDispatcher, base epoch, off int64, end <-chan struct{}) bool {
	if int64(base.since()) >= off {
		return true
	}
	wait := &d.waits[w.local]
	d.announce(w.local, off)
	for wait.Load() != noWait {
		select {
		case <-w.wake:
		case <-w.done:
			wait.Store(noWait)
			return false
		case <-end:
			wait.Store(noWait)
			return false
		}
	}
	w.spinTo(base, time.Duration(off), d.yield)
	return true
}
