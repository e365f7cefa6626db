package bench

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Pacing modes of an open loop (workload load.pacing).
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

// spinWindow is how long before an intended start the dispatcher stops
// sleeping and starts spinning. Runtime timers wake through netpoll, whose
// wait is rounded up to whole milliseconds on Linux (golang/go#47084):
// measured here, a sleep overshoots by up to about 1.1 ms, so a sleep that
// aims 1.5 ms early still ends before the deadline. The window bounds the
// CPU spent: at most one core, and only while an operation is due within
// it.
const spinWindow = 1500 * time.Microsecond

// wakeLead is how long before its intended start the dispatcher releases
// a slot. Waking a parked worker takes the runtime about 13 µs here (a
// channel send, then the worker scheduled); the worker spends the lead
// spinning to the intended start instead of starting that much late.
const wakeLead = 25 * time.Microsecond

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
	base    epoch
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
	done        <-chan struct{} // interrupt
	stop        *atomic.Bool
	quit        chan struct{} // closed when the phase no longer needs releases
	timer       *time.Timer
	yield       bool // spin with runtime.Gosched: there is only one P
}

func newDispatcher(base epoch, pacer Pacer, total, limitNs int64, wake []chan struct{}, done <-chan struct{}, stop *atomic.Bool) *dispatcher {
	d := &dispatcher{
		base: base, pacer: pacer, total: total, limitNs: limitNs, span: int64(len(wake)),
		wake: wake, done: done, stop: stop, quit: make(chan struct{}),
		timer: time.NewTimer(time.Hour), yield: runtime.GOMAXPROCS(0) == 1,
	}
	d.timer.Stop()
	d.due.Store(-1)
	for _, c := range wake {
		// A wake left from the previous phase would only cost its worker a
		// spurious check; drop it anyway.
		select {
		case <-c:
		default:
		}
	}
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
		if !d.waitUntil(off - wakeLead) {
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

// waitUntil returns true once base.since() >= at: a timer sleep up to
// spinWindow before it, then a nap (nanosleep, on Linux) up to napSlack
// before it, then a spin on the clock. The spin keeps its P
// rather than yielding on every turn: a goroutine that yields sits in the
// global run queue, and the scheduler polls the network only when its
// queues are empty, so a yielding spinner would leave replies unread
// until sysmon's poll (up to 10 ms; measured p50 latency went from 0.6 to
// 5-20 ms). Holding one P leaves the others to run the workers and, when
// idle, to block in the network poller. With a single P there are no
// others, and the spin yields. False if interrupted first.
func (d *dispatcher) waitUntil(at time.Duration) bool {
	for {
		left := at - d.base.since()
		if left <= 0 {
			return true
		}
		if d.stop.Load() {
			return false
		}
		if left > spinWindow {
			d.timer.Reset(left - spinWindow)
			select {
			case <-d.timer.C:
			case <-d.done:
				d.timer.Stop()
				return false
			case <-d.quit:
				d.timer.Stop()
				return false
			}
			continue
		}
		if left > napSlack {
			n := left - napSlack
			if d.yield {
				// The nap holds the only P; give it back often.
				n = min(n, napSlack)
				runtime.Gosched()
			}
			nap(n)
			continue
		}
		if d.yield {
			runtime.Gosched()
		}
	}
}

// end stops the dispatcher if the schedule has not ended it already.
func (d *dispatcher) end() { close(d.quit) }

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
	// Released up to wakeLead early: spin the rest of the way.
	now := base.since()
	for ; now < off; now = base.since() {
		if d.yield {
			runtime.Gosched()
		}
	}
	if w.rec != nil {
		w.rec.recordLate(int64(now - off))
	}
	return true
}
