//go:build linux && cgo

package verbs

/*
#include <stdlib.h>
#include "verbs.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// listenBacklog is the rdma_listen backlog.
const listenBacklog = 128

// serverSendCQE caps the listener's shared send CQ; it bounds how many
// connections one listener accepts (each needs its send queue's worth).
const serverSendCQE = 32768

// listener owns one event channel, one device and one group: a receive
// CQ with, where the device has one, a shared receive queue (otherwise
// each accepted QP has a receive queue of its own), and a send CQ shared
// by every accepted QP.
type listener struct {
	cfg    transport.Config
	accept transport.AcceptFunc
	dev    *device
	g      *group
	srq    *C.struct_ibv_srq // nil: receives per connection
	cm     *cmChannel
	id     *C.struct_rdma_cm_id
	addr   string

	maxConns int
	mu       sync.Mutex
	byID     map[*C.struct_rdma_cm_id]*conn // guarded by mu

	cmDone    chan struct{}
	closeOnce sync.Once
	closed    atomic.Bool
}

// Listen binds addr (an IP on an RDMA device; port 0 picks one) and accepts
// connections until Close.
func (network) Listen(addr string, cfg transport.Config, accept transport.AcceptFunc) (transport.Listener, error) {
	cfg, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	if accept == nil {
		return nil, errors.New("verbs: listen: nil AcceptFunc")
	}
	if err := checkDevices(); err != nil {
		return nil, fmt.Errorf("verbs: %w", err)
	}
	l, err := listen(addr, cfg, accept)
	if err != nil {
		return nil, fmt.Errorf("verbs: %w", err)
	}
	if l.srq != nil {
		return sharedListener{l}, nil
	}
	return l, nil
}

func listen(addr string, cfg transport.Config, accept transport.AcceptFunc) (_ *listener, err error) {
	sa, err := parseAddr(context.Background(), addr)
	if err != nil {
		return nil, err
	}
	l := &listener{cfg: cfg, accept: accept, byID: map[*C.struct_rdma_cm_id]*conn{}, cmDone: make(chan struct{})}
	var undo ladder
	defer func() {
		if err != nil {
			undo.unwind()
		}
	}()

	if l.cm, err = openCM(); err != nil {
		return nil, err
	}
	undo.push(l.cm.close)
	if l.id, err = l.cm.createID(); err != nil {
		return nil, err
	}
	undo.push(func() { destroyID(l.id) })
	if err := setTOS(l.id, cfg.TOS); err != nil {
		return nil, err
	}
	if err := errno(C.kv_bind_listen(l.id, sa.family, &sa.ip[0], C.int(sa.port), sa.scope, listenBacklog)); err != nil {
		return nil, fmt.Errorf("bind: %w", err)
	}
	ctx, err := listenDevice(l.id.verbs, cfg.Device, sa.host)
	if err != nil {
		return nil, err
	}
	if l.dev, err = acquireDevice(ctx); err != nil {
		return nil, err
	}
	undo.push(l.dev.release)
	shared, err := l.dev.caps.serve(cfg.Receives)
	if err != nil {
		return nil, err
	}

	g := newGroup(l.dev)
	g.final = l.final
	l.g = g
	perConn := 2*cfg.SendDepth + 1
	sendCQE := min(serverSendCQE, int(l.dev.d.max_cqe))
	if l.maxConns = sendCQE / perConn; l.maxConns < 1 {
		return nil, fmt.Errorf("SendDepth %d needs a %d-entry CQ, device allows %d", cfg.SendDepth, perConn, sendCQE)
	}
	if g.scq, err = openCQ(l.dev, sendCQE, cfg.Poll, 0); err != nil {
		return nil, err
	}
	undo.push(g.scq.close)
	if shared {
		err = l.openSharedRecvs(&undo)
		// A device that claims SRQs but makes none serves per
		// connection (Info says so), unless the shared queue was
		// required.
		if err != nil && cfg.Receives == transport.ReceivesAuto {
			err = l.openRecvCQ(&undo)
		}
	} else {
		err = l.openRecvCQ(&undo)
	}
	if err != nil {
		return nil, err
	}
	l.addr = net.JoinHostPort(sa.host, strconv.Itoa(int(C.kv_local_port(l.id))))

	go g.scq.run(nil)
	go g.rcq.run(g.control)
	go l.serveCM()
	return l, nil
}

// openSharedRecvs opens the receive CQ and the shared receive queue,
// sized for every chunk the queue may grow by within the device's limits;
// only the first chunk is registered.
func (l *listener) openSharedRecvs(outer *ladder) (err error) {
	cfg, g := l.cfg, l.g
	var undo ladder
	defer func() {
		if err != nil {
			undo.unwind()
			g.rcq, g.rq, l.srq = nil, nil, nil
			return
		}
		for _, f := range undo {
			outer.push(f)
		}
	}()
	per := recvBuffers(cfg.RecvDepth, cfg.Poll)
	chunks := recvChunks(cfg.RecvDepth, cfg.MaxRecvDepth)
	chunks = max(1, min(chunks, (int(l.dev.d.max_srq_wr))/per, (int(l.dev.d.max_cqe)-64)/per))
	nrecv := chunks * per
	if g.rcq, err = openCQ(l.dev, nrecv+64, cfg.Poll, cfg.BusyIdle); err != nil {
		return err
	}
	undo.push(g.rcq.close)
	g.wire()
	if g.rq, err = newRecvQueue(l.dev, cfg.RecvDepth, cfg.MaxMessage, cfg.Poll, chunks); err != nil {
		return err
	}
	undo.push(g.rq.free)
	g.rcq.rq = g.rq
	if l.srq, err = openSRQ(l.dev, nrecv); l.srq == nil {
		return fmt.Errorf("create shared receive queue (%d): %w", nrecv, err)
	}
	undo.push(func() { C.ibv_destroy_srq(l.srq) })
	g.rq.setSRQ(l.srq)
	return g.rq.postAll()
}

// srqFault, when a test sets it, is what making a shared receive queue
// fails with, as on a device that claims SRQs but makes none.
var srqFault error

// openSRQ makes a shared receive queue of n WRs.
func openSRQ(d *device, n int) (*C.struct_ibv_srq, error) {
	if srqFault != nil {
		return nil, srqFault
	}
	srq, err := C.kv_srq_open(d.d, C.int(n))
	return srq, err
}

// openRecvCQ opens the receive CQ of a listener whose connections have
// receive queues of their own (openConnRecvs): each of RecvDepth, all
// completing there, so the CQ bounds the connections too.
func (l *listener) openRecvCQ(undo *ladder) (err error) {
	cqe := min(serverSendCQE, int(l.dev.d.max_cqe))
	if n := (cqe - 64) / l.cfg.RecvDepth; n < l.maxConns {
		l.maxConns = n
	}
	if l.maxConns < 1 {
		return fmt.Errorf("RecvDepth %d per connection needs a %d-entry CQ, device allows %d", l.cfg.RecvDepth, l.cfg.RecvDepth+64, cqe)
	}
	if l.g.rcq, err = openCQ(l.dev, cqe, l.cfg.Poll, l.cfg.BusyIdle); err != nil {
		return err
	}
	undo.push(l.g.rcq.close)
	l.g.wire()
	return nil
}

// openConnRecvs gives an accepted connection its own receive queue, on a
// listener without a shared one, before its QP is made. Its buffers are
// reposted as they are released (the poller's batched repost serves one
// queue only).
func (l *listener) openConnRecvs(c *conn) (err error) {
	if l.srq != nil {
		return nil
	}
	c.rq, err = newRecvQueue(l.dev, l.cfg.RecvDepth, l.cfg.MaxMessage, transport.PollEvent, 1)
	c.ownRQ = err == nil
	return err
}

// listenDevice picks the device: the one the address is on, checked
// against Config.Device; for a wildcard address Config.Device or the only
// device there is.
func listenDevice(bound *C.struct_ibv_context, want, host string) (*C.struct_ibv_context, error) {
	if want != "" {
		cs := C.CString(want)
		defer C.free(unsafe.Pointer(cs))
		ctx := C.kv_dev_find(cs)
		if ctx == nil {
			return nil, fmt.Errorf("%w: device %q not found", transport.ErrNoDevice, want)
		}
		if bound != nil && bound != ctx {
			return nil, fmt.Errorf("%s is on device %s, not the configured %s", host,
				C.GoString(C.ibv_get_device_name(bound.device)), want)
		}
		return ctx, nil
	}
	if bound != nil {
		return bound, nil
	}
	var n C.int
	list := C.rdma_get_devices(&n)
	if list == nil || n == 0 {
		return nil, noDevice("")
	}
	defer C.rdma_free_devices(list)
	if n > 1 {
		return nil, fmt.Errorf("%s is not on one RDMA device and there are %d: listen on a device's address or set Device", host, int(n))
	}
	return *list, nil
}

func (l *listener) Addr() string { return l.addr }

// MaxConns is the most connections the shared send CQ has room for; a
// connection request past it is rejected.
func (l *listener) MaxConns() int { return l.maxConns }

// sharedListener is a listener with a shared receive queue, which the
// server divides by credit (transport.SharedReceives).
type sharedListener struct{ *listener }

// SharedRecvs is the receives the shared receive queue keeps posted: a
// RecvDepth per chunk. A busy-polled queue has deferMax more in each, of
// which its poller holds at most deferMax to repost in a batch.
func (l sharedListener) SharedRecvs() int {
	return l.g.rq.buffers() / l.g.rq.perChunk * l.cfg.RecvDepth
}

// MaxSharedRecvs is what SharedRecvs may grow to.
func (l sharedListener) MaxSharedRecvs() int { return l.g.rq.maxChunks * l.cfg.RecvDepth }

// GrowRecvs adds a chunk of receives to the shared receive queue.
func (l sharedListener) GrowRecvs() (int, error) {
	_, err := l.g.rq.grow()
	return l.SharedRecvs(), err
}

func (l *listener) Info() transport.Info {
	r := transport.ReceivesShared
	if l.srq == nil {
		r = transport.ReceivesPerConn
	}
	return transport.Info{Transport: Name, Link: transport.Link{Device: l.dev.name, Firmware: l.dev.fw}, Poll: l.cfg.Poll, Receives: r}
}

func (l *listener) Register(size int, access transport.Access) (transport.Region, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed.Load() {
		return nil, fmt.Errorf("verbs: register on a closed listener: %w", transport.ErrClosed)
	}
	return newRegion(l.dev, size, access)
}

// serveCM handles connection requests and the events of accepted ids.
func (l *listener) serveCM() {
	defer close(l.cmDone)
	var ev C.struct_kv_event
	for l.cm.next(&ev) == nil {
		switch ev.event {
		case C.RDMA_CM_EVENT_CONNECT_REQUEST:
			l.onRequest(&ev)
		case C.RDMA_CM_EVENT_ESTABLISHED:
			l.settled(ev.id)
		case C.RDMA_CM_EVENT_TIMEWAIT_EXIT:
		case C.RDMA_CM_EVENT_DISCONNECTED:
			l.shutdownID(ev.id, errPeerClosed)
		case C.RDMA_CM_EVENT_DEVICE_REMOVAL:
			l.shutdownID(ev.id, errRemoved)
		default:
			if ev.id != l.id {
				l.shutdownID(ev.id, fmt.Errorf("verbs: %s (status %d)", eventName(ev.event), int(ev.status)))
			}
		}
	}
}

func (l *listener) shutdownID(id *C.struct_rdma_cm_id, err error) {
	l.mu.Lock()
	c := l.byID[id]
	l.mu.Unlock()
	if c != nil {
		c.settle()
		c.shutdown(err)
	}
}

// settled tells a connection's teardown that the CM's connection
// attempt is over: established, or ended by an error event.
func (l *listener) settled(id *C.struct_rdma_cm_id) {
	l.mu.Lock()
	c := l.byID[id]
	l.mu.Unlock()
	if c != nil {
		c.settle()
	}
}

func reject(id *C.struct_rdma_cm_id) {
	C.rdma_reject(id, nil, 0)
	C.rdma_destroy_id(id)
}

// onRequest accepts one connection: QP on the shared queues (and its own
// receive queue where there is no shared one), registered before
// rdma_accept (after which the peer may send at once), then the
// AcceptFunc. Receives that beat the AcceptFunc wait on c.ready.
func (l *listener) onRequest(ev *C.struct_kv_event) {
	id := ev.id
	l.mu.Lock()
	full := len(l.byID) >= l.maxConns
	l.mu.Unlock()
	if full || id.verbs != l.dev.ctx() {
		reject(id)
		return
	}
	// A server's blocking operations (window binds and invalidations) run
	// on the receive poller; one that waits behind sends the peer is not
	// taking must not hold it longer than a send would be held.
	cfg := l.cfg
	if cfg.OpTimeout <= 0 || cfg.OpTimeout > cfg.StallTimeout {
		cfg.OpTimeout = cfg.StallTimeout
	}
	c, err := newConn(l.g, l.dev, cfg)
	if err != nil {
		reject(id)
		return
	}
	// A peer may leave its queued replies untaken this long before it is
	// dropped; see drainBacklog.
	c.sendStall, c.queueing = cfg.StallTimeout, true
	if err := l.openConnRecvs(c); err != nil {
		reject(id)
		return
	}
	if err := c.createQP(id, l.srq); err != nil {
		c.freeRecvs()
		reject(id)
		return
	}
	if err := c.postRecvs(); err != nil {
		C.rdma_destroy_qp(id)
		c.dev.ev.drop(c)
		c.freeRecvs()
		reject(id)
		return
	}
	l.dev.acquire()
	l.mu.Lock()
	l.byID[id] = c
	l.mu.Unlock()
	l.g.addConn(c)
	C.kv_set_ack_timeout(id, ackTimeout)
	// The event gives both from the recipient's side already: its
	// responder_resources is the peer's initiator depth (rdma_get_cm_event(3)).
	rd := min(int(ev.responder_resources), int(l.dev.d.max_qp_rd_atom), rdAtomMax)
	init := min(int(ev.initiator_depth), int(l.dev.d.max_qp_init_rd_atom), rdAtomMax)
	if err := errno(C.kv_accept(id, C.int(rd), C.int(init))); err != nil {
		c.settle()
		c.markReady()
		c.shutdown(fmt.Errorf("verbs: accept: %w", err))
		return
	}
	c.shortenRNR()
	c.describe()
	c.h = l.accept(c)
	c.markReady()
	if c.h == nil {
		c.shutdown(errors.New("verbs: connection refused by the accept callback"))
	}
}

// final runs on the receive poller once a connection is finished. The
// teardown itself runs elsewhere: destroying a QP can block in the kernel
// (rxe holds a QP whose responder hit an access error for tens of
// seconds), and the poller serves every other connection.
func (l *listener) final(c *conn) {
	go l.teardown(c)
}

func (l *listener) teardown(c *conn) {
	c.release()
	// A connection dropped right after it was accepted may still wait for
	// the peer's RTU. rdma_disconnect sends no DREQ then, and destroying
	// the id would answer with a REJ, which a peer that already sent its
	// RTU ignores: it would never hear of the drop. Once the CM has
	// settled the attempt, a disconnect reaches it.
	select {
	case <-c.settled:
	case <-time.After(settleGuard):
	}
	C.rdma_disconnect(c.id)
	l.mu.Lock()
	delete(l.byID, c.id)
	l.mu.Unlock()
	C.rdma_destroy_id(c.id)
	c.dev.release()
	close(c.done)
}

// Close stops accepting, closes every connection and waits for them, then
// frees the shared queues. It must not be called from a Handler.
func (l *listener) Close() error {
	l.closeOnce.Do(func() {
		l.mu.Lock()
		l.closed.Store(true)
		l.mu.Unlock()
		l.cm.stop()
		<-l.cmDone
		l.mu.Lock()
		conns := make([]*conn, 0, len(l.byID))
		for _, c := range l.byID {
			conns = append(conns, c)
		}
		l.mu.Unlock()
		// No CM event comes any more: no teardown waits for one.
		for _, c := range conns {
			c.settle()
			c.shutdown(nil)
		}
		for _, c := range conns {
			<-c.done
		}
		l.g.rcq.halt(true)
		l.g.scq.halt(true)
		if l.srq != nil {
			l.g.rq.shutdown()
			C.ibv_destroy_srq(l.srq)
			l.g.rq.free()
		}
		l.g.rcq.close()
		l.g.scq.close()
		C.rdma_destroy_id(l.id)
		l.cm.close()
		l.dev.release()
	})
	return nil
}
