package rdmakv

import (
	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// handler receives the connection's completions; kept apart so Client does
// not export Deliver and Closed.
type handler struct{ c *Client }

func (h handler) Deliver(conn transport.Conn, m *transport.Message) {
	c := h.c
	if m.Kind != transport.KindRecv {
		m.Release()
		return
	}
	var f wire.Frame
	if err := f.Decode(m.Data); err != nil {
		m.Release()
		c.log.Warn("rdmakv: closing connection: malformed message from server", "remote", conn.RemoteAddr(), "err", err)
		// Closing unmaps the staging region: let a Set copying into it
		// finish first, as Client.Close does.
		if c.staging != nil {
			c.staging.seal()
		}
		conn.Close()
		return
	}
	if !c.ready.Load() {
		if f.Type == wire.HelloReply {
			if r, ok := conn.(transport.CallerReader); ok && f.Status == wire.OK && c.opts.depth == 1 {
				// From the first request on, its caller reads the reply
				// (see Client.reader); the handshake is the last message
				// the transport's reader delivers.
				r.HandOverReads(c.noneAbandoned)
			}
			select {
			case c.helloCh <- m:
				return
			default:
			}
		}
		m.Release()
		return
	}
	c.credit.raise(f.Credit)
	if f.Type == wire.Credit {
		m.Release()
		return
	}
	if s := c.slot(f.ReqID & 0xffff); s != nil {
		s.mu.Lock()
		if s.wait && s.id == f.ReqID {
			s.wait = false
			s.frame = f // read by the waiter after it receives m
			if s.polled {
				s.got.Store(m)
			} else {
				s.ch <- m // cap 1 and wait was set, so the channel is empty
			}
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
	c.lateReply()
	c.late(m, &f)
}

// lateReply counts off a reply that came for a request given up.
func (c *Client) lateReply() {
	for {
		n := c.abandoned.Load()
		if n == 0 {
			return
		}
		if c.abandoned.CompareAndSwap(n, n-1) {
			c.signalLate()
			return
		}
	}
}

// noneAbandoned reports that no reply is still to come for a request
// given up: the caller reading (Client.reader) then misses nothing
// while no request is in flight.
func (c *Client) noneAbandoned() bool { return c.abandoned.Load() == 0 }

// late disposes of a reply whose request already gave up: a read window
// is released at once and a write grant is cancelled (a SET_FIN whose
// length cannot match makes the server free the slot) instead of waiting
// for the lease. The message goes out from its own goroutine: late runs on
// the transport's delivery path, and a Send there could wait on a stream
// the peer is itself blocked writing, stalling both ends.
func (c *Client) late(m *transport.Message, f *wire.Frame) {
	var h wire.Header
	switch {
	case f.Type == wire.GetReplyRdv && f.Status == wire.OK && f.Token != 0:
		h = wire.Header{Type: wire.GetRelease, Token: f.Token}
	case f.Type == wire.SetRdvGrant && f.Status == wire.OK && f.Token != 0:
		h = wire.Header{Type: wire.SetFin, Token: f.Token, Length: ^uint64(0)}
		c.abandoned.Add(1) // the server answers the cancel (request id 0), late by design
	}
	if m != nil {
		m.Release()
	}
	if h.Type != 0 {
		b := make([]byte, wire.MaxHeaderSize)
		b = b[:h.Encode(b)]
		go func() { _ = c.conn.Send(b, nil, nil) }() // takes a credit first
	}
}

func (h handler) Closed(conn transport.Conn, err error) {
	h.c.markDone(err)
}
