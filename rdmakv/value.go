package rdmakv

import (
	"sync/atomic"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Value is a value returned by Get. Its bytes are a view into the client's
// registered memory (the receive buffer of an eager reply, or the staging
// region after a rendezvous READ), valid until Release or the client's
// Close; losing the server does not invalidate it.
//
// A Value is a handle on a pooled record, stamped with the record's
// generation. Release bumps the generation, so a Release (or Bytes) through
// a handle that was already released does nothing, even after the record
// has been handed out again by a later Get. Handles themselves are never
// reused.
type Value struct {
	r   *valueRec
	gen uint64
}

// valueRec holds what a Value pins. Records are recycled; handles are not.
type valueRec struct {
	c     *Client
	gen   atomic.Uint64 // bumped by each Release; a handle is live while it matches
	data  []byte
	proto Protocol
	msg   *transport.Message
	buf   stageBuf
}

// handleChunk is how many handles are allocated at once. Handles cannot be
// recycled (a stale one may still be called), so they come in chunks to
// keep Get free of a per-call allocation; a chunk is garbage once every
// handle in it is.
const handleChunk = 256

// live reports whether v still owns its record.
func (v *Value) live() bool { return v != nil && v.r != nil && v.r.gen.Load() == v.gen }

// Bytes is the value; nil after Release. Holding a Value holds a receive
// buffer (eager) or staging memory (rendezvous), so release promptly.
func (v *Value) Bytes() []byte {
	if !v.live() {
		return nil
	}
	return v.r.data
}

// Protocol says how the server answered: Eager (inline) or Rendezvous; 0
// after Release.
func (v *Value) Protocol() Protocol {
	if !v.live() {
		return 0
	}
	return v.r.proto
}

// Release returns the memory behind the value (kv_release). Calling it
// again, at any later time, does nothing.
func (v *Value) Release() {
	if v == nil || v.r == nil || !v.r.gen.CompareAndSwap(v.gen, v.gen+1) {
		return
	}
	r := v.r
	if r.msg != nil {
		r.msg.Release()
	}
	if r.buf.n > 0 {
		r.c.staging.put(r.buf)
	}
	r.c.putRec(r)
}

// getRec takes a cleared record from the free list.
func (c *Client) getRec() *valueRec {
	c.valMu.Lock()
	defer c.valMu.Unlock()
	return c.getRecLocked()
}

func (c *Client) getRecLocked() *valueRec {
	if k := len(c.recs); k > 0 {
		r := c.recs[k-1]
		c.recs = c.recs[:k-1]
		return r
	}
	return &valueRec{c: c}
}

// putRec clears r and returns it to the free list.
func (c *Client) putRec(r *valueRec) {
	viewed := r.msg != nil
	r.data, r.msg, r.buf, r.proto = nil, nil, stageBuf{}, 0
	c.valMu.Lock()
	if viewed {
		c.heldRecv--
	}
	c.recs = append(c.recs, r)
	c.valMu.Unlock()
}

// handOut wraps a filled record in a fresh handle.
func (c *Client) handOut(r *valueRec) *Value {
	c.valMu.Lock()
	v := c.handleLocked()
	c.valMu.Unlock()
	v.r, v.gen = r, r.gen.Load()
	return v
}

func (c *Client) handleLocked() *Value {
	if len(c.handles) == 0 {
		c.handles = make([]Value, handleChunk)
	}
	v := &c.handles[0]
	c.handles = c.handles[1:]
	return v
}

// eagerValue is getRec and handOut for an eager reply in one trip to
// valMu: every lock on the eager path is paid on each round trip, many
// times over under CPU emulation. The Value views the receive buffer
// while fewer than recvSpare others do; past that the value is copied
// into staging and the buffer goes back at once, so Values an
// application holds never take the buffers its next replies need.
func (c *Client) eagerValue(m *transport.Message, data []byte) (*Value, error) {
	c.valMu.Lock()
	view := c.heldRecv < recvSpare
	if view {
		c.heldRecv++
	}
	r := c.getRecLocked()
	v := c.handleLocked()
	c.valMu.Unlock()
	r.proto = Eager
	if view {
		r.msg, r.data = m, data
	} else if err := c.copyOut(r, m, data); err != nil {
		c.putRec(r)
		return nil, err
	}
	v.r, v.gen = r, r.gen.Load()
	return v, nil
}

// copyOut moves an eager value out of its receive buffer m into staging
// and releases m.
func (c *Client) copyOut(r *valueRec, m *transport.Message, data []byte) error {
	defer m.Release()
	if len(data) == 0 {
		r.data = data[:0:0]
		return nil
	}
	b, err := c.staging.get(len(data))
	if err != nil {
		return err
	}
	if err := c.staging.fill(b, data); err != nil {
		c.staging.put(b)
		return err
	}
	r.buf, r.data = b, b.bytes()
	return nil
}
