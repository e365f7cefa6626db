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

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// group is the completion side shared by a set of connections: a send CQ,
// a receive CQ, their pollers and the receive buffers. A listener has one
// group for all its connections (receives come from one shared receive
// queue, or where there is none from each connection's own, and rq is
// nil); a client connection has a group of its own.
//
// Send-side completions (one-sided operations, window binds, send ring
// reclamation, drains) and receives are on separate CQs with separate
// pollers, so a Handler may call a blocking operation from Deliver: the
// receive poller it runs on is not the goroutine that completes it.
type group struct {
	dev *device
	scq *cq
	rcq *cq
	rq  *recvQueue

	mapMu sync.Mutex                       // serialises writers of conns
	conns atomic.Pointer[map[uint32]*conn] // by QP number, copy on write
	// only is the group's connection while it has exactly one (a
	// client's), so a completion finds it without a map lookup.
	only atomic.Pointer[conn]

	closingMu sync.Mutex
	closing   []*conn

	// delivering is set while the receive poller runs Handler code, so that
	// a Close from inside the Handler does not wait for itself.
	delivering atomic.Bool

	// final runs on the receive poller after a connection's Closed.
	final func(c *conn)
}

func newGroup(d *device) *group {
	g := &group{dev: d}
	m := map[uint32]*conn{}
	g.conns.Store(&m)
	return g
}

// wire gives the CQs their dispatchers once both are open. Every waiter
// for a send-side completion polls the send CQ itself in busy mode, so
// its background poller only sweeps.
func (g *group) wire() {
	g.scq.dispatch = g.sendDispatch
	g.scq.lazy = true
	g.rcq.dispatch = g.recvDispatch
}

func (g *group) lookup(qpn uint32) *conn {
	if c := g.only.Load(); c != nil && c.qpn == qpn {
		return c
	}
	return (*g.conns.Load())[qpn]
}

// setOnly keeps only in step with m; mapMu is held.
func (g *group) setOnly(m map[uint32]*conn) {
	g.only.Store(nil)
	if len(m) == 1 {
		for _, c := range m {
			g.only.Store(c)
		}
	}
}

func (g *group) addConn(c *conn) {
	g.mapMu.Lock()
	defer g.mapMu.Unlock()
	old := *g.conns.Load()
	m := make(map[uint32]*conn, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[c.qpn] = c
	g.conns.Store(&m)
	g.setOnly(m)
}

func (g *group) removeConn(c *conn) {
	g.mapMu.Lock()
	defer g.mapMu.Unlock()
	old := *g.conns.Load()
	if old[c.qpn] != c {
		return
	}
	m := make(map[uint32]*conn, len(old))
	for k, v := range old {
		if k != c.qpn {
			m[k] = v
		}
	}
	g.conns.Store(&m)
	g.setOnly(m)
}

func (g *group) snapshot() []*conn {
	m := *g.conns.Load()
	out := make([]*conn, 0, len(m))
	for _, c := range m {
		out = append(out, c)
	}
	return out
}

// sendDispatch runs on the send poller: it wakes blocked callers, advances
// send rings and notices drained QPs. It never runs Handler code.
func (g *group) sendDispatch(wcs []C.struct_kv_wc) {
	for i := range wcs {
		wc := &wcs[i]
		c := g.lookup(uint32(wc.qp_num))
		if c == nil {
			continue
		}
		var err error
		if wc.status != C.IBV_WC_SUCCESS {
			err = c.statusErr(wc)
			if wc.status != C.IBV_WC_WR_FLUSH_ERR {
				c.shutdown(err)
			}
		}
		id := uint64(wc.wr_id)
		switch id >> kindShift {
		case kindOp:
			c.slots.complete(uint32(id), uint32(id>>32)&genMask, err)
		case kindSend:
			c.ringDone(id & seqMask)
		case kindDrain:
			g.queueClosing(c)
		}
	}
}

// recvDispatch runs on the receive poller and is the only caller of
// Deliver, so deliveries for a connection are ordered.
func (g *group) recvDispatch(wcs []C.struct_kv_wc) {
	for i := range wcs {
		wc := &wcs[i]
		idx := int(uint32(wc.wr_id))
		c := g.lookup(uint32(wc.qp_num))
		q := g.rq
		if c != nil {
			q = c.rq
		}
		if wc.status != C.IBV_WC_SUCCESS {
			if c != nil && wc.status != C.IBV_WC_WR_FLUSH_ERR {
				c.shutdown(c.statusErr(wc))
			}
			if q != nil && q.shared() {
				q.repost(idx) // the shared queue outlives the QP
			}
			continue
		}
		if c == nil {
			// A connection's own queue goes with it; the shared one
			// takes the buffer back.
			if q != nil {
				q.repost(idx)
			}
			continue
		}
		c.waitReady()
		if c.h == nil {
			q.repost(idx)
			continue
		}
		if wc.inv != 0 {
			g.peerInvalidated(c, uint32(wc.inv))
		}
		m := q.fill(idx, wc)
		g.delivering.Store(true)
		c.h.Deliver(c, m)
		g.delivering.Store(false)
	}
}

// peerInvalidated marks the window a SEND_WITH_INV on c closed. The spec
// lets a peer invalidate only windows bound to its own QP, but rxe checks
// neither QP nor PD: a key of another connection's window is marked on
// that connection too (whose Revoke must then not invalidate it again) and
// c, which had no business closing it, is dropped.
func (g *group) peerInvalidated(c *conn, rkey uint32) {
	if c.peerInvalidated(rkey) {
		return
	}
	for _, o := range g.snapshot() {
		if o != c && o.peerInvalidated(rkey) {
			c.shutdown(fmt.Errorf("%w: peer invalidated window %#x of another connection", transport.ErrRemoteAccess, rkey))
			return
		}
	}
}

// queueClosing hands a drained connection to the receive poller, which
// finishes it after the last delivery.
func (g *group) queueClosing(c *conn) {
	g.closingMu.Lock()
	g.closing = append(g.closing, c)
	g.closingMu.Unlock()
	g.rcq.kick()
}

// control runs on the receive poller after a kick.
func (g *group) control() {
	g.closingMu.Lock()
	list := g.closing
	g.closing = nil
	g.closingMu.Unlock()
	if len(list) == 0 {
		return
	}
	// Everything the QPs received before they entered the error state is
	// in the CQ by now; deliver it before announcing Closed.
	for {
		n := g.rcq.poll(1, false)
		if n == 0 {
			break
		}
		g.recvDispatch(g.rcq.wcs[:n])
	}
	for _, c := range list {
		g.finish(c)
	}
}

func (g *group) finish(c *conn) {
	if !c.finishing.CompareAndSwap(false, true) {
		return
	}
	g.removeConn(c)
	c.waitReady()
	if c.h != nil {
		g.delivering.Store(true)
		c.h.Closed(c, c.cause())
		g.delivering.Store(false)
	}
	g.final(c)
}
