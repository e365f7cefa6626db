//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"fmt"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Grant binds a type-2 memory window over r[off:off+n] to this QP: only
// this connection's peer can use the returned rkey, and only inside the
// range. It returns once the bind has completed. Without window support
// (see WindowsEnforced) it returns the region's own rkey, and enforcement
// is then region-wide.
func (c *conn) Grant(r transport.Region, off, n int, access transport.Access) (uint32, error) {
	return c.grant(r, off, n, access, true)
}

// GrantQueued is Grant without the wait (transport.QueuedWindows): the
// bind's completion frees its slot on the send poller, and a failed bind
// fails the QP, so no message posted after it reaches the peer.
func (c *conn) GrantQueued(r transport.Region, off, n int, access transport.Access) (uint32, error) {
	return c.grant(r, off, n, access, false)
}

func (c *conn) grant(r transport.Region, off, n int, access transport.Access, wait bool) (uint32, error) {
	reg, err := localRange(c.dev, r, off, n)
	if err != nil {
		return 0, fmt.Errorf("verbs: grant: %w", err)
	}
	if access == 0 || access&^(transport.AccessRemoteRead|transport.AccessRemoteWrite) != 0 {
		return 0, fmt.Errorf("verbs: grant: access %#x must be remote read and/or write", uint8(access))
	}
	if !reg.mwBind {
		return c.grantShared(reg, access)
	}
	w, err := c.takeWindow()
	if err != nil {
		return 0, err
	}
	rkey := w.rkey&^0xff | (w.rkey+1)&0xff
	mr := reg.buf.mr
	if c.dev.mwByMR {
		sub, err := reg.takeSub(off, n)
		if err != nil {
			c.putWindow(w)
			return 0, err
		}
		// Under winMu: release reads w.sub, and once it has run the MR
		// goes back here.
		c.winMu.Lock()
		if c.windows == nil {
			c.winMu.Unlock()
			reg.putSub(sub)
			return 0, c.closedErr()
		}
		w.sub, w.reg, mr = sub, reg, sub.mr
		c.winMu.Unlock()
	}
	i, err := c.postBind(w, mr, reg.addr+uint64(off), n, access, rkey, wait)
	if err != nil {
		c.dropWindowMR(w)
		c.putWindow(w)
		return 0, fmt.Errorf("verbs: grant: %w", err)
	}
	if wait {
		if err := c.wait(i); err != nil {
			return 0, fmt.Errorf("verbs: grant: bind window: %w", err)
		}
	}
	// The provider names the window by its current key in the next bind;
	// a post_send bind leaves updating it to us.
	w.rkey = rkey
	w.mw.rkey = C.uint32_t(rkey)
	c.winMu.Lock()
	if c.windows != nil {
		c.windows[rkey] = w
	}
	c.winMu.Unlock()
	return rkey, nil
}

// postBind posts the bind of w over [addr, addr+n) of mr under rkey in
// slot i, which the caller waits on if wait is set.
func (c *conn) postBind(w *window, mr *C.struct_ibv_mr, addr uint64, n int, access transport.Access,
	rkey uint32, wait bool) (i uint32, err error) {
	i, err = c.acquireFor(wait)
	if err != nil {
		return 0, err
	}
	var wrid uint64
	if wait {
		wrid = c.slots.arm(i)
	} else {
		wrid = c.slots.armDetached(i)
	}
	if err := c.lockOpen(i); err != nil {
		return 0, err
	}
	rc := C.kv_post_bind_h(h(c.qp), h(w.mw), h(mr), C.uint64_t(addr), C.uint64_t(n), ibvAccess(access),
		C.uint32_t(rkey), C.uint64_t(wrid))
	c.opMu.RUnlock()
	if rc != 0 {
		return 0, c.abandon(i, fmt.Errorf("post bind: %w", errno(rc)))
	}
	return i, nil
}

func (c *conn) grantShared(reg *region, access transport.Access) (uint32, error) {
	if reg.access&access != access {
		return 0, fmt.Errorf("verbs: grant: region registered without the requested remote access, "+
			"and device %s has no memory windows to narrow it", c.dev.name)
	}
	c.winMu.Lock()
	defer c.winMu.Unlock()
	if c.shared == nil {
		return 0, c.closedErr()
	}
	c.shared[reg.rkey]++
	return reg.rkey, nil
}

// Revoke invalidates the window and waits for the invalidation to
// complete: an access that arrives after Revoke returns fails.
func (c *conn) Revoke(rkey uint32) error {
	c.winMu.Lock()
	if c.windows == nil {
		c.winMu.Unlock()
		return c.closedErr()
	}
	w := c.windows[rkey]
	if w == nil {
		n, ok := c.shared[rkey]
		if ok {
			if n <= 1 {
				delete(c.shared, rkey)
			} else {
				c.shared[rkey] = n - 1
			}
		}
		c.winMu.Unlock()
		if !ok {
			return fmt.Errorf("verbs: revoke: no window with rkey %#x on this connection", rkey)
		}
		return nil
	}
	delete(c.windows, rkey)
	peerClosed := w.peerClosed
	w.peerClosed = false
	c.winMu.Unlock()
	if peerClosed {
		c.dropWindowMR(w)
		c.putWindow(w)
		return nil
	}
	i, err := c.acquire()
	if err != nil {
		return err
	}
	wrid := c.slots.arm(i)
	if err := c.lockOpen(i); err != nil {
		return err
	}
	rc := C.kv_post_inv_h(h(c.qp), C.uint32_t(rkey), C.uint64_t(wrid))
	c.opMu.RUnlock()
	if rc != 0 {
		return c.abandon(i, fmt.Errorf("verbs: revoke: post invalidate: %w", errno(rc)))
	}
	if err := c.wait(i); err != nil {
		return fmt.Errorf("verbs: revoke: %w", err)
	}
	c.dropWindowMR(w)
	c.putWindow(w)
	return nil
}

// PeerCanInvalidate reports whether rkey is a bound window of this
// connection (transport.PeerInvalidator); region-wide keys are not.
func (c *conn) PeerCanInvalidate(rkey uint32) bool {
	c.winMu.Lock()
	defer c.winMu.Unlock()
	_, ok := c.windows[rkey]
	return ok
}

// RevokeWaits reports whether Revoke(rkey) would post an invalidation
// and wait for it (transport.QueuedWindows).
func (c *conn) RevokeWaits(rkey uint32) bool {
	c.winMu.Lock()
	defer c.winMu.Unlock()
	w := c.windows[rkey]
	return w != nil && !w.peerClosed && c.state.Load() == stateOpen
}

// peerInvalidated records, from the receive poller before the message is
// delivered, that a SEND_WITH_INV closed window rkey, and reports whether
// the window is one of c's.
func (c *conn) peerInvalidated(rkey uint32) bool {
	c.winMu.Lock()
	defer c.winMu.Unlock()
	w := c.windows[rkey]
	if w != nil {
		w.peerClosed = true
	}
	return w != nil
}

// takeWindow reuses an invalidated window or allocates one.
func (c *conn) takeWindow() (*window, error) {
	c.winMu.Lock()
	defer c.winMu.Unlock()
	if c.windows == nil {
		return nil, c.closedErr()
	}
	if n := len(c.mwFree); n > 0 {
		w := c.mwFree[n-1]
		c.mwFree = c.mwFree[:n-1]
		return w, nil
	}
	mw, err := C.kv_mw_open(c.dev.d)
	if mw == nil {
		return nil, fmt.Errorf("verbs: grant: allocate memory window: %w", err)
	}
	w := &window{mw: mw, rkey: uint32(mw.rkey)}
	c.mwAll = append(c.mwAll, w)
	return w, nil
}

// dropWindowMR gives back a window's own MR once nothing is bound to it.
func (c *conn) dropWindowMR(w *window) {
	c.winMu.Lock()
	if w.sub != nil && c.windows != nil {
		w.reg.putSub(w.sub)
		w.sub = nil
	}
	c.winMu.Unlock()
}

func (c *conn) putWindow(w *window) {
	c.winMu.Lock()
	if c.windows != nil {
		c.mwFree = append(c.mwFree, w)
	}
	c.winMu.Unlock()
}

// WindowsEnforced reports whether Grant on conn c hands out per-connection
// memory windows (true) or falls back to region-wide rkeys (false, when the
// device cannot allocate type-2 windows). c must be a verbs connection.
func WindowsEnforced(c transport.Conn) bool {
	vc, ok := c.(*conn)
	return ok && vc.dev.mw
}
