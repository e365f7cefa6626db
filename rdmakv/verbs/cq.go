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
// returns to Go to check for shutdown and yield.
const busySpins = 256

// cq is a completion queue and the goroutine that drains it. In event mode
// it sleeps on the completion channel through Go's netpoller (a dup of the
// channel fd wrapped in an os.File), so no OS thread blocks in C; a kick
// wakes it by expiring the file's read deadline.
type cq struct {
	c    *C.struct_kv_cq
	wcs  []C.struct_kv_wc
	busy bool

	f      *os.File
	rc     syscall.RawConn
	waitFn func(fd uintptr) bool

	stop   atomic.Bool
	kicked atomic.Bool
	done   chan struct{}
}

func openCQ(d *device, cqe int, poll transport.Poll) (*cq, error) {
	if cqe > int(d.d.max_cqe) {
		cqe = int(d.d.max_cqe)
	}
	q := &cq{busy: poll == transport.PollBusy, done: make(chan struct{})}
	event := C.int(1)
	if q.busy {
		event = 0
	}
	if err := errno(C.kv_cq_open(d.d, C.int(cqe), event, batch, &q.c)); err != nil {
		return nil, fmt.Errorf("verbs: create completion queue (%d entries): %w", cqe, err)
	}
	q.wcs = unsafe.Slice(q.c.wcs, batch)
	if q.busy {
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
	return q, nil
}

// poll returns how many completions landed in q.wcs.
func (q *cq) poll(spins int) int {
	n := int(C.kv_poll(q.c, C.int(spins)))
	if n < 0 {
		return 0
	}
	return n
}

// run drains the CQ until stopped, handing batches to dispatch. control
// runs on this goroutine after every kick.
func (q *cq) run(dispatch func([]C.struct_kv_wc), control func()) {
	defer close(q.done)
	for !q.stop.Load() {
		if q.kicked.Swap(false) && control != nil {
			control()
			continue
		}
		spins := eventSpins
		if q.busy {
			spins = busySpins
		}
		if n := q.poll(spins); n > 0 {
			dispatch(q.wcs[:n])
			continue
		}
		if q.busy {
			runtime.Gosched()
			continue
		}
		if n := int(C.kv_arm_poll(q.c)); n > 0 {
			dispatch(q.wcs[:n])
			continue
		}
		err := q.rc.Read(q.waitFn)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			q.f.SetReadDeadline(time.Time{})
			continue
		}
		if err != nil {
			return
		}
	}
}

// kick makes run call control soon.
func (q *cq) kick() {
	q.kicked.Store(true)
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
	if q.f != nil {
		q.f.Close()
	}
	C.kv_cq_close(q.c)
	q.c = nil
}
