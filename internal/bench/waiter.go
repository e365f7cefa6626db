package bench

import (
	"runtime"
	"sync/atomic"
	"time"
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

// waiter is how a dispatcher (an open loop's or a replay's) waits for the
// next release: the only goroutine of a precisely paced phase that sleeps
// on a timer, naps and spins.
type waiter struct {
	base  epoch
	done  <-chan struct{} // interrupt
	stop  *atomic.Bool
	quit  chan struct{} // closed when the phase no longer needs releases
	timer *time.Timer
	yield bool // spin with runtime.Gosched: there is only one P
}

func newWaiter(base epoch, done <-chan struct{}, stop *atomic.Bool) waiter {
	p := waiter{base: base, done: done, stop: stop, quit: make(chan struct{}),
		timer: time.NewTimer(time.Hour), yield: runtime.GOMAXPROCS(0) == 1}
	p.timer.Stop()
	return p
}

// How a waitUntil ended.
type waitEnd int

const (
	waitDue     waitEnd = iota // the time came
	waitPoked                  // poke had something: the target may have moved
	waitStopped                // interrupted, or quit closed
)

// waitUntil returns waitDue once base.since() >= at: a timer sleep up to
// spinWindow before it, then a nap (nanosleep, on Linux) up to napSlack
// before it, then a spin on the clock. The spin keeps its P
// rather than yielding on every turn: a goroutine that yields sits in the
// global run queue, and the scheduler polls the network only when its
// queues are empty, so a yielding spinner would leave replies unread
// until sysmon's poll (up to 10 ms; measured p50 latency went from 0.6 to
// 5-20 ms). Holding one P leaves the others to run the workers and, when
// idle, to block in the network poller. With a single P there are no
// others, and the spin yields. It ends early, waitPoked, when poke holds
// a value (nil: never), or waitStopped if interrupted.
func (p *waiter) waitUntil(at time.Duration, poke <-chan struct{}) waitEnd {
	for {
		left := at - p.base.since()
		switch {
		case left <= 0:
			return waitDue
		case p.stop.Load():
			return waitStopped
		case len(poke) > 0:
			return waitPoked
		case left > spinWindow:
			if end := p.sleep(left-spinWindow, poke); end != waitDue {
				return end
			}
		case left > napSlack:
			n := left - napSlack
			if p.yield || poke != nil {
				// The nap holds the only P, or keeps a poke waiting (a
				// nanosleep cannot be woken): keep it short.
				n = min(n, napSlack)
			}
			if p.yield {
				runtime.Gosched()
			}
			nap(n)
		case p.yield:
			runtime.Gosched()
		}
	}
}

// sleep is waitUntil's timer phase. It takes the poke that ends it; one
// that comes during the nap or spin is left for the caller to take.
func (p *waiter) sleep(d time.Duration, poke <-chan struct{}) waitEnd {
	p.timer.Reset(d)
	select {
	case <-p.timer.C:
		return waitDue
	case <-poke:
		p.timer.Stop()
		return waitPoked
	case <-p.done:
	case <-p.quit:
	}
	p.timer.Stop()
	return waitStopped
}

// end stops the dispatcher if its schedule has not ended it already.
func (p *waiter) end() { close(p.quit) }

// drainWakes drops the wakes left in wake from the previous phase: each
// would only cost its worker a spurious check, but need not.
func drainWakes(wake []chan struct{}) {
	for _, c := range wake {
		select {
		case <-c:
		default:
		}
	}
}

// spinTo spins out the rest of the way to off, which a dispatcher woke
// w up to wakeLead before, and records how late w issues (its issue
// delay).
func (w *worker) spinTo(base epoch, off time.Duration, yield bool) {
	now := base.since()
	for ; now < off; now = base.since() {
		if yield {
			runtime.Gosched()
		}
	}
	if w.rec != nil {
		w.rec.recordLate(int64(now - off))
	}
}
