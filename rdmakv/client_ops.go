package rdmakv

import (
	"context"
	"fmt"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// Set stores value under key (kv_set): eager if key+value is below the
// (set) threshold, else rendezvous (the value is written into a server window
// with one WRITE_WITH_IMM).
func (c *Client) Set(ctx context.Context, key, value []byte) error {
	_, err := c.SetVia(ctx, key, value)
	return err
}

// SetVia is Set, and says which protocol the value went by: the one
// ProtocolFor gives, or under WithAdaptiveThreshold the policy's for this
// request, exploration included, which ProtocolFor cannot know. It is 0
// when the set failed before a protocol was chosen.
func (c *Client) SetVia(ctx context.Context, key, value []byte) (Protocol, error) {
	if err := c.closedErr(); err != nil {
		return 0, err
	}
	if err := c.checkKey(key); err != nil {
		return 0, err
	}
	if int64(len(value)) > c.limits.MaxValue {
		return 0, fmt.Errorf("%w: %d bytes, server accepts %d", ErrValueTooLarge, len(value), c.limits.MaxValue)
	}
	s, err := c.acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer c.releaseSlot(s)
	c.traceStart(s, OpSet)
	if c.setProtocol(s, len(key), len(value)) == Eager {
		if err := c.call(s, wire.Header{Type: wire.Set, Flags: c.tflag}, key, value); err != nil {
			return Eager, err
		}
		return Eager, c.setDone(s, c.finish(ctx, s, wire.SetReply, Eager, "SET"))
	}
	return Rendezvous, c.setDone(s, c.setRendezvous(ctx, s, key, value))
}

func (c *Client) setRendezvous(ctx context.Context, s *cslot, key, value []byte) error {
	n := len(value)
	var buf stageBuf
	if n > 0 {
		var err error
		if buf, err = c.staging.get(n); err != nil {
			return err
		}
		defer c.staging.put(buf)
		c.traceAt(&s.trace.Start) // finding staging is the client's work
	}
	if err := c.call(s, wire.Header{Type: wire.SetRdvReq, Flags: c.flags | c.tflag, Length: uint64(n)}, key, nil); err != nil {
		return err
	}
	// Copy the value while the request travels and the server grants.
	if n > 0 {
		if err := c.staging.fill(buf, value); err != nil {
			if m := s.disarm(); m != nil {
				f, _ := wire.Decode(m.Data)
				c.late(m, &f) // cancels a grant that raced in
			}
			return err
		}
	}
	c.traceAt(&s.trace.Staged)
	m, f, err := c.wait(ctx, s, wire.SetRdvGrant)
	if err != nil {
		return err
	}
	m.Release()
	c.traceGrant(s)
	if f.Status != wire.OK {
		c.traceEnd(ctx, s, Rendezvous)
		return statusErr("SET_RDV_REQ", f.Status)
	}
	if f.Length != uint64(n) || f.Token == 0 {
		c.late(nil, &f)
		return fmt.Errorf("%w: grant for %d bytes (token %d), asked %d", ErrProtocol, f.Length, f.Token, n)
	}
	s.rearm()
	if err := c.moveValue(s, &f, buf, n); err != nil {
		if m := s.disarm(); m != nil {
			m.Release()
		}
		return err
	}
	c.traceAt(&s.trace.Moved)
	return c.finish(ctx, s, wire.SetReply, Rendezvous, "SET")
}

// moveValue writes a granted set's n bytes from buf and sends what
// commits them: with a window the peer closes, the WRITE and a SET_FIN
// that closes it in one post; on a device without immediate data (iWARP)
// the WRITE and a SET_FIN; else one WRITE_WITH_IMM; an empty value, a
// SET_FIN alone.
func (c *Client) moveValue(s *cslot, f *wire.Frame, buf stageBuf, n int) error {
	fin := func() []byte {
		h := wire.Header{Type: wire.SetFin, Flags: c.tflag, ReqID: s.id, Token: f.Token, Length: uint64(n)}
		return s.hdr[:h.Encode(s.hdr[:])]
	}
	switch {
	case n == 0:
		return c.send(s, wire.Header{Type: wire.SetFin, Flags: c.tflag, Token: f.Token}, nil, nil)
	case c.conn.inval != nil && f.Flags&wire.FlagPeerInvalidate != 0:
		return c.conn.WriteInvalidate(buf.region, buf.off, n, f.Addr, f.RKey, fin(), nil, nil)
	case c.conn.noImm != nil:
		return c.conn.WriteSend(buf.region, buf.off, n, f.Addr, f.RKey, fin(), nil, nil)
	}
	return c.conn.WriteImm(buf.region, buf.off, n, f.Addr, f.RKey, f.Token)
}

// Get fetches key's value (kv_get): inline in the reply if key+value is
// below the (get) threshold, which the request carries, else rendezvous.
// The Value views client memory (a receive buffer for eager replies, the
// staging region for rendezvous) and must be released.
func (c *Client) Get(ctx context.Context, key []byte) (*Value, error) {
	if err := c.closedErr(); err != nil {
		return nil, err
	}
	if err := c.checkKey(key); err != nil {
		return nil, err
	}
	s, err := c.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer c.releaseSlot(s)
	c.traceStart(s, OpGet)
	if err := c.call(s, wire.Header{Type: wire.Get, Flags: c.flags | c.tflag, Aux: c.getAux(s, len(key))}, key, nil); err != nil {
		return nil, err
	}
	m, err := c.waitAny(ctx, s)
	if err != nil {
		return nil, err
	}
	f := s.frame
	switch {
	case f.Type == wire.GetReplyInline:
		if f.Status != wire.OK {
			m.Release()
			c.traceEnd(ctx, s, Eager)
			return nil, statusErr("GET", f.Status)
		}
		c.traceAt(&s.trace.End) // handing the value out is the client's work
		v, err := c.eagerValue(m, f.Value)
		if err == nil {
			c.traceEnd(ctx, s, Eager)
		}
		return c.gotValue(s, v, err)
	case f.Type == wire.GetReplyRdv:
		m.Release()
		c.traceGrant(s)
		if f.Status != wire.OK {
			c.traceEnd(ctx, s, Rendezvous)
			return nil, statusErr("GET", f.Status)
		}
		v, err := c.getRendezvous(ctx, s, &f)
		return c.gotValue(s, v, err)
	}
	m.Release()
	return nil, fmt.Errorf("%w: GET answered %s", ErrProtocol, f.Type)
}

// getRendezvous READs the value from the server's window into staging,
// then releases the window at once so the server can reclaim the slot.
func (c *Client) getRendezvous(ctx context.Context, s *cslot, f *wire.Frame) (*Value, error) {
	n := f.Length
	release := func() error {
		if f.Token == 0 {
			return nil
		}
		return c.send(s, wire.Header{Type: wire.GetRelease, Token: f.Token}, nil, nil)
	}
	if n > uint64(c.limits.MaxValue) {
		release()
		return nil, fmt.Errorf("%w: rendezvous reply of %d bytes", ErrProtocol, n)
	}
	r := c.getRec()
	r.proto = Rendezvous
	if n == 0 {
		r.data = []byte{}
		c.traceAt(&s.trace.Moved)
		if err := release(); err != nil {
			c.putRec(r)
			return nil, err
		}
		c.traceEnd(ctx, s, Rendezvous)
		return c.handOut(r), nil
	}
	buf, err := c.staging.get(int(n))
	if err != nil {
		release()
		c.putRec(r)
		return nil, err
	}
	c.traceAt(&s.trace.Staged)
	if c.conn.inval != nil && f.Token != 0 && f.Flags&wire.FlagPeerInvalidate != 0 {
		h := wire.Header{Type: wire.GetRelease, ReqID: s.id, Token: f.Token}
		hn := h.Encode(s.hdr[:])
		err = c.conn.ReadInvalidate(buf.region, buf.off, int(n), f.Addr, f.RKey, s.hdr[:hn], nil, nil)
		c.traceAt(&s.trace.Moved) // the READ and the release complete together
	} else if err = c.conn.Read(buf.region, buf.off, int(n), f.Addr, f.RKey); err != nil {
		release() // best effort: a failed READ usually means the connection is gone
	} else {
		c.traceAt(&s.trace.Moved)
		err = release()
	}
	if err != nil {
		c.staging.put(buf)
		c.putRec(r)
		return nil, err
	}
	c.traceEnd(ctx, s, Rendezvous)
	r.buf, r.data = buf, buf.bytes()
	return c.handOut(r), nil
}

// Delete removes key; ErrNotFound if it was absent.
func (c *Client) Delete(ctx context.Context, key []byte) error {
	if err := c.closedErr(); err != nil {
		return err
	}
	if err := c.checkKey(key); err != nil {
		return err
	}
	s, err := c.acquire(ctx)
	if err != nil {
		return err
	}
	defer c.releaseSlot(s)
	c.traceStart(s, OpDelete)
	if err := c.call(s, wire.Header{Type: wire.Delete, Flags: c.tflag}, key, nil); err != nil {
		return err
	}
	return c.finish(ctx, s, wire.DeleteReply, Eager, "DELETE")
}
