//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// lastWQEGuard bounds how long a connection's teardown waits for its QP's
// LAST_WQE_REACHED once the device has sent one; until it has, the wait
// is lastWQEUnseen, so that a provider that never sends the event (older
// kernels' rxe) costs that much per closed connection, not a hang.
const (
	lastWQEGuard  = 2 * time.Second
	lastWQEUnseen = 100 * time.Millisecond
)

// events reads a device's asynchronous events, one goroutine per open
// device, and hands each to the connection it names: a QP's
// LAST_WQE_REACHED lets its teardown go on, a fatal QP, port or device
// event ends the connections it breaks with a cause that says so.
type events struct {
	mu          sync.Mutex
	qps         map[uint32]*conn // by QP number, while the QP exists
	done        chan struct{}
	lastWQESeen atomic.Bool
}

// watch starts the device's event reader.
func (d *device) watch() {
	d.ev = &events{qps: map[uint32]*conn{}, done: make(chan struct{})}
	go d.readEvents()
}

// unwatch stops the reader; the device is closed after.
func (d *device) unwatch() {
	C.kv_async_wake(d.d)
	<-d.ev.done
}

func (d *device) readEvents() {
	defer close(d.ev.done)
	var ev C.struct_kv_async
	for {
		r := C.kv_async_next(d.d, &ev)
		if r <= 0 {
			return // woken to stop, or the device is gone
		}
		d.event(&ev)
	}
}

// event dispatches one event.
func (d *device) event(ev *C.struct_kv_async) {
	switch ev._type {
	case C.IBV_EVENT_QP_LAST_WQE_REACHED:
		d.ev.lastWQESeen.Store(true)
		if c := d.ev.conn(uint32(ev.qp_num)); c != nil {
			c.lastWQE.Do(func() { close(c.lastWQECh) })
		}
	case C.IBV_EVENT_QP_FATAL, C.IBV_EVENT_QP_REQ_ERR, C.IBV_EVENT_QP_ACCESS_ERR:
		if c := d.ev.conn(uint32(ev.qp_num)); c != nil {
			c.shutdown(fmt.Errorf("%w: QP %d: %s", transport.ErrFatal, uint32(ev.qp_num), asyncName(ev._type)))
		}
	case C.IBV_EVENT_PORT_ERR:
		d.ev.each(func(c *conn) bool { return c.info.Port == int(ev.port) },
			fmt.Errorf("%w: %s port %d went down", transport.ErrFatal, d.name, int(ev.port)))
	case C.IBV_EVENT_DEVICE_FATAL:
		d.ev.each(func(*conn) bool { return true }, fmt.Errorf("%w: device %s failed", transport.ErrFatal, d.name))
	}
}

func asyncName(t C.int) string { return C.GoString(C.ibv_event_type_str(uint32(t))) }

// add files c under its QP number; drop takes it out.
func (e *events) add(c *conn) {
	e.mu.Lock()
	e.qps[c.qpn] = c
	e.mu.Unlock()
}

func (e *events) drop(c *conn) {
	e.mu.Lock()
	if e.qps[c.qpn] == c {
		delete(e.qps, c.qpn)
	}
	e.mu.Unlock()
}

func (e *events) conn(qpn uint32) *conn {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.qps[qpn]
}

// each ends every connection match picks with cause.
func (e *events) each(match func(*conn) bool, cause error) {
	e.mu.Lock()
	var hit []*conn
	for _, c := range e.qps {
		if match(c) {
			hit = append(hit, c)
		}
	}
	e.mu.Unlock()
	for _, c := range hit {
		c.shutdown(cause)
	}
}

// awaitLastWQE waits, before an SRQ-attached QP is destroyed, for the
// event that says it will take no more of the shared queue's receives:
// destroyed earlier, it could leave receives it had taken neither
// completed nor back in the queue.
func (c *conn) awaitLastWQE() {
	guard := lastWQEUnseen
	if c.dev.ev.lastWQESeen.Load() {
		guard = lastWQEGuard
	}
	t := time.NewTimer(guard)
	defer t.Stop()
	select {
	case <-c.lastWQECh:
	case <-t.C:
	}
}
