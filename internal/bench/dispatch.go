package bench

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Pacing modes of an open loop and of a replay at a speed (workload
// load.pacing).
const (
	// PacingPrecise releases each operation from one dispatcher goroutine
	// that sleeps until spinWindow before the intended start and naps and
	// spins the rest, so operations leave within microseconds of their
	// schedule.
	PacingPrecise = "precise"
	// PacingCoarse has each worker wait on its own runtime timer: nothing
	// spins, but on Linux a wait ends up to about 1 ms late.
	PacingCoarse = "coarse"
)

// dispatcher releases the slots of an open-loop schedule at their intended
// starts. Slot n belongs to worker n mod W, as in coarse pacing, so each
// worker's operations (and the connection that carries them) stay the
// same for a seed; only the wait changes. Only the dispatcher sleeps on a
// timer and spins; a worker waiting for its slot blocks on its own wake
// channel, which a send readies at once without going through the timer.
//
// The dispatcher never blocks on a worker: the wake is a non-blocking send
// into a one-element buffer, and a worker that is busy when its slot comes
// finds the slot released (due >= slot) when it looks, so one stalled
// worker cannot delay the others' releases.
type dispatcher struct {
	waiter
	pacer   Pacer
	total   int64 // slots in the schedule; < 0: unbounded
	limitNs int64 // > 0: slots from this offset on are not scheduled
	// due is the highest slot released so far (-1: none). Slots are
	// released in order, wakeLead early, so due >= n says slot n starts
	// within wakeLead.
	due  atomic.Int64
	wake []chan struct{} // per worker, capacity 1
	// first and span place this rank's workers in the schedule: slot n
	// is theirs when first <= n mod span < first+len(wake) (0 and W
	// alone).
	first, span int64
}

func newDispatcher(base epoch, pacer Pacer, total, limitNs int64, wake []chan struct{}, done <-chan struct{}, stop *atomic.Bool) *dispatcher {
	d := &dispatcher{
		waiter: newWaiter(base, done, stop), pacer: pacer, total: total, limitNs: limitNs,
		span: int64(len(wake)), wake: wake,
	}
	d.due.Store(-1)
	drainWakes(wake)
	return d
}

// run releases every slot of the schedule in order, returning when the
// schedule ends, the run is interrupted or quit is closed.
func (d *dispatcher) run() {
	W := int64(len(d.wake))
	for s := int64(0); ; s++ {
		n := s/W*d.span + d.first + s%W // this rank's s-th slot
		if d.total >= 0 && n >= d.total {
			return
		}
		off, ok := d.pacer.Offset(n)
		if !ok || (d.limitNs > 0 && int64(off) >= d.limitNs) {
			return
		}
		if d.waitUntil(off-wakeLead, nil) != waitDue {
			return
		}
		d.due.Store(n)
		select {
		case d.wake[s%W] <- struct{}{}:
			// The woken worker waits in this P's run queue; let it run
			// now rather than when another P gets round to stealing it.
			runtime.Gosched()
		default: // a wake is pending already; the worker will check due
		}
	}
}

// await blocks worker w until slot g's intended start (off) and reports
// whether it got there; false on interrupt. It sleeps on its wake channel
// until the dispatcher releases the slot, then spins out the wakeLead. A
// worker that was idle before the intended start records how late it
// issues (its issue delay); one that was busy past it goes at once.
func (w *worker) await(d *dispatcher, g int64, base epoch, off time.Duration) bool {
	if base.since() >= off {
		// Busy past the intended start (backlog), or free only now: go.
		return true
	}
	for d.due.Load() < g {
		select {
		case <-w.wake:
		case <-w.done:
			return false
		}
	}
	w.spinTo(base, off, d.yield)
	return true
}
