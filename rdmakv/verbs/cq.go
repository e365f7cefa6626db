//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// batch is how many completions one poll returns at most.
const batch = 32

// eventSpins is how many empty polls an event-mode poller makes before it
// arms the CQ and sleeps: arming, sleeping and waking cost a few system
// calls, which a reply already on its way makes unnecessary.
var eventSpins = 64

// busySpins is how many empty polls a busy poller makes in C before it
// returns to Go to check for shutdown. Shorter bursts (16 or 4) made
// eager GET p50 51-73 us instead of 43 us in the Soft-RoCE guest.
const busySpins = 256

// sweepEvery is how often a busy-mode background poller looks at a CQ
// whose waiters poll it themselves. It then only picks up what nobody
// waits for (late replies, ring reclamation, failures) and leaves the
// cores to the callers: on a small machine a second spinning thread per
// CQ costs more than it saves. Each sweep wakes a thread, on the caller's
// CPU when the process is pinned to one, and on rxe a wake-up there in
// the middle of a one-sided operation can leave the rest of its deferred
// kernel work to ksoftirqd, which runs only when the spinning caller
// yields: in the Soft-RoCE guest, six rounds of 64 KiB rendezvous GETs
// had a READ phase of 1.40 ms at the median sweeping every 10 ms,
// 1.32 ms at 100 ms and 1.33 ms at 1 s.
// A kick (shutdown, control) ends a sweeper's nap at once.
const sweepEvery = 100 * time.Millisecond

// armRetry is how long an event-mode poller waits before polling again
// when its CQ could not be armed for a notification.
const armRetry = time.Millisecond

// cq is a completion queue and the goroutine that drains it. In event mode
// it sleeps on the completion channel through Go's netpoller (a dup of the
// channel fd wrapped in an os.File), so no OS thread blocks in C; a kick
// wakes it by expiring the file's read deadline.
type cq struct {
	c    *C.struct_kv_cq
	wcs  []C.struct_kv_wc
	busy bool
	// idle, in busy mode, is how long run spins with nothing arriving
	// before it sleeps on the completion channel (Config.BusyIdle); zero
	// spins without end. naps counts those sleeps.
	idle time.Duration
	naps atomic.Uint64
	// armFailures counts sleeps given up because the CQ could not be
	// armed (see sleep).
	armFailures atomic.Uint64
	// yield paces the yields of every loop spinning on this CQ.
	yield yielder
	// rq, on a receive CQ, is the queue whose released buffers each
	// poll reposts first.
	rq *recvQueue

	// dispatch handles a batch of completions; set before any poll.
	dispatch func([]C.struct_kv_wc)
	// pmu lets one goroutine at a time poll and dispatch: the background
	// poller or, in busy mode, a caller waiting for its own completion.
	// Holding it across dispatch keeps Handler calls serialised and in
	// order. dead (guarded by pmu) is set when the CQ is destroyed.
	pmu  sync.Mutex
	dead bool
	// lazy makes the busy background poller only sweep (sweepEvery):
	// set for send CQs, whose every waiter polls for itself, and on a
	// receive CQ once a caller has polled it (callerDriven).
	lazy         bool
	callerDriven atomic.Bool

	f      *os.File
	rc     syscall.RawConn
	waitFn func(fd uintptr) bool
	// arm is kv_arm_poll on this CQ (guarded by pmu): completions found,
	// or -errno when the CQ could not be armed.
	arm func() int

	stop   atomic.Bool
	kicked atomic.Bool
	// nudge ends a sweeper's nap (napTimer, used by run only) on a kick.
	nudge    chan struct{}
	napTimer *time.Timer
	done     chan struct{}
}

// openCQ opens a CQ polled as poll says. A busy CQ with an idle bound
// gets a completion channel too, to sleep on when nothing arrives.
func openCQ(d *device, cqe int, poll transport.Poll, idle time.Duration) (*cq, error) {
	if cqe > int(d.d.max_cqe) {
		cqe = int(d.d.max_cqe)
	}
	q := &cq{busy: poll == transport.PollBusy, nudge: make(chan struct{}, 1), done: make(chan struct{})}
	if q.busy {
		q.idle = idle
		ensureBusyProcs()
	}
	event := C.int(1)
	if q.busy && q.idle == 0 {
		event = 0
	}
	if err := errno(C.kv_cq_open(d.d, C.int(cqe), event, batch, &q.c)); err != nil {
		return nil, fmt.Errorf("verbs: create completion queue (%d entries): %w", cqe, err)
	}
	q.wcs = unsafe.Slice(q.c.wcs, batch)
	if event == 0 {
		return q, nil
	}
	fd, err := syscall.Dup(int(q.c.ch.fd))
	if err != nil {
		C.kv_cq_close(q.c)
		return nil, fmt.Errorf("verbs: dup completion channel: %w", err)
	}
	q.f = os.NewFile(uintptr(fd), "ibv-comp-channel")
	if q.rc, err = q.f.SyscallConn(); err != nil {
		q.f.Close()
		C.kv_cq_close(q.c)
		return nil, fmt.Errorf("verbs: completion channel: %w", err)
	}
	q.waitFn = func(uintptr) bool { return C.kv_cq_events(q.c) != -C.EAGAIN }
	q.arm = func() int { return int(C.kv_arm_poll(q.c)) }
	return q, nil
}

// poll returns how many completions landed in q.wcs; see kv_poll for
// yield.
func (q *cq) poll(spins int, yield bool) int {
	y := C.int(0)
	if yield {
		y = 1
	}
	rq, idx, npst := q.rq.take()
	n := int(C.kv_poll_h(h(q.c), C.int(spins), y, h(rq), idx, npst))
	q.rq.taken(npst)
	if n < 0 {
		return 0
	}
	return n
}

// run drains the CQ until stopped, handing batches to q.dispatch. control
// runs on this goroutine, holding pmu, after every kick.
func (q *cq) run(control func()) {
	defer close(q.done)
	// quiet is when the current run of empty polls began (zero while
	// completions arrive): the clock is read once per empty burst, never
	// on the productive path.
	var quiet time.Time
	for !q.stop.Load() {
		// Load first: a swap on every turn of a busy loop is a locked
		// instruction that under emulation costs more than the load.
		if q.kicked.Load() && q.kicked.Swap(false) && control != nil {
			q.pmu.Lock()
			control()
			q.pmu.Unlock()
			continue
		}
		if q.busy {
			if q.lazy || q.callerDriven.Load() {
				if q.tryPoll(1, false) != pollGot {
					q.nap(sweepEvery)
				}
				continue
			}
			switch q.tryPoll(busySpins, false) {
			case pollGot:
				quiet = time.Time{}
				continue
			case pollTaken:
				runtime.Gosched()
				continue
			}
			now := time.Now()
			if quiet.IsZero() {
				quiet = now
			} else if q.idle > 0 && now.Sub(quiet) >= q.idle {
				q.naps.Add(1)
				if !q.sleep() {
					return
				}
				quiet = time.Time{}
				continue
			}
			q.yield.Empty(now)
			continue
		}
		if !q.sleep() {
			return
		}
	}
}

// sleep arms the CQ and, when nothing slipped in, waits on the completion
// channel until a completion or a kick. It reports false when the channel
// is gone.
func (q *cq) sleep() bool {
	q.pmu.Lock()
	n := q.poll(eventSpins, false)
	armed := true
	if n == 0 {
		if r := q.arm(); r < 0 {
			armed = false
		} else {
			n = r
		}
	}
	if n > 0 {
		q.dispatch(q.wcs[:n])
	}
	q.pmu.Unlock()
	if n > 0 {
		return true
	}
	if !armed {
		// An unarmed CQ never signals its channel: sleeping on it would
		// strand every completion after this one. Poll again shortly.
		q.armFailures.Add(1)
		time.Sleep(armRetry)
		return true
	}
	err := q.rc.Read(q.waitFn)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		q.f.SetReadDeadline(time.Time{})
		return true
	}
	return err == nil
}

// pollResult is what tryPoll did.
type pollResult uint8

const (
	// pollTaken: another goroutine holds the CQ (or it is gone), so
	// nothing was polled; a spinning caller yields to let the holder run.
	pollTaken pollResult = iota
	// pollEmpty: the CQ stayed empty for the whole burst. The burst
	// itself was the wait, so a spinner yields only once per
	// yieldEvery: runtime.Gosched wakes another thread to take
	// the goroutine over (wakep), a context switch each time.
	pollEmpty
	// pollGot: completions were dispatched.
	pollGot
)

// tryPoll polls up to spins times and dispatches what it finds, unless
// another goroutine is polling or the CQ is gone. yield is kv_poll's:
// for callers waiting on a one-sided operation of their own.
func (q *cq) tryPoll(spins int, yield bool) pollResult {
	if !q.pmu.TryLock() {
		return pollTaken
	}
	if q.dead {
		q.pmu.Unlock()
		return pollTaken
	}
	n := q.poll(spins, yield)
	if n > 0 {
		q.dispatch(q.wcs[:n])
	}
	q.pmu.Unlock()
	if n > 0 {
		return pollGot
	}
	return pollEmpty
}

// pause is what a waiter spinning on q does after a burst that found
// nothing: yield at once to the goroutine holding the CQ, else once per
// yieldEvery.
func (q *cq) pause(r pollResult, now time.Time) {
	switch r {
	case pollTaken:
		runtime.Gosched()
	case pollEmpty:
		q.yield.Empty(now)
	}
}

// nap sleeps for d, or until a kick.
func (q *cq) nap(d time.Duration) {
	if q.napTimer == nil {
		q.napTimer = time.NewTimer(d)
	} else {
		q.napTimer.Reset(d)
	}
	select {
	case <-q.napTimer.C:
	case <-q.nudge:
		q.napTimer.Stop()
	}
}

// kick makes run call control soon.
func (q *cq) kick() {
	q.kicked.Store(true)
	select {
	case q.nudge <- struct{}{}:
	default:
	}
	if q.f != nil {
		q.f.SetReadDeadline(time.Unix(1, 0))
	}
}

// halt stops run and waits for it; started says whether run was started.
func (q *cq) halt(started bool) {
	q.stop.Store(true)
	q.kick()
	if started {
		<-q.done
	}
}

// close destroys the CQ; run must have returned and every QP on it must be
// destroyed.
func (q *cq) close() {
	if q == nil {
		return
	}
	q.pmu.Lock()
	defer q.pmu.Unlock()
	if q.dead {
		return
	}
	q.dead = true
	if q.f != nil {
		q.f.Close()
	}
	C.kv_cq_close(q.c)
	q.c = nil
}
