package rdmakv

import (
	"strings"
	"sync/atomic"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// Refusal is why the server turned a connection away or dropped it
// before it was done.
type Refusal uint8

// Reasons for a refusal.
const (
	// RefusedMaxConns: MaxConns connections were already served at HELLO.
	RefusedMaxConns Refusal = iota
	// RefusedHandshakeTimeout: no accepted HELLO within HandshakeTimeout.
	RefusedHandshakeTimeout
	// RefusedHandshakeShed: the oldest handshake, shed for a newcomer
	// when MaxHandshakes were waiting for HELLO (or the listener was
	// full).
	RefusedHandshakeShed
	// RefusedAuth: the answer to the authentication challenge was wrong.
	RefusedAuth
	// RefusedProtocol: the client broke the protocol (a malformed or
	// unexpected message, an unknown token) and was dropped.
	RefusedProtocol
	// RefusedTransport: the transport failed the connection (for
	// example a one-sided access outside the client's windows).
	RefusedTransport
	refusalCount
)

var refusalNames = [refusalCount]string{"max_conns", "handshake_timeout", "handshake_shed", "auth", "protocol", "transport"}

func (r Refusal) String() string { return refusalNames[r] }

// ServerCounters are running totals since the server started, for
// monitoring. Each figure only grows.
type ServerCounters struct {
	// Accepted counts connections admitted: HELLO accepted under
	// MaxConns.
	Accepted uint64
	// Refused counts connections turned away or dropped, by reason; a
	// connection counts once, under its first reason.
	Refused map[Refusal]uint64
	// Requests counts requests by operation and protocol: GETs by the
	// reply the server chose, SETs by the request the client sent.
	Requests map[Op]map[Protocol]uint64
	// Errors counts replies with a status other than OK, by status name
	// in lower case ("not_found", "no_space"). AUTH_REQUIRED, the first
	// step of authentication, is not an error.
	Errors map[string]uint64
	// BytesIn and BytesOut are value bytes stored by SETs and served by
	// GETs, inline or through a window.
	BytesIn, BytesOut uint64
	// LeaseExpiries counts rendezvous windows the server revoked because
	// their lease ran out.
	LeaseExpiries uint64
}

// connCounters are one connection's totals. Only its delivery goroutine
// (and the rare background commit) adds to them, so connections served on
// different cores never contend for a counter; when the connection closes
// its totals move into the server's.
type connCounters struct {
	requests [OpDelete + 1][Rendezvous + 1]atomic.Uint64
	errors   [wire.StatusCount]atomic.Uint64
	in, out  atomic.Uint64
}

// add moves o's totals into c.
func (c *connCounters) add(o *connCounters) {
	for op := range c.requests {
		for p := range c.requests[op] {
			c.requests[op][p].Add(o.requests[op][p].Load())
		}
	}
	for st := range c.errors {
		c.errors[st].Add(o.errors[st].Load())
	}
	c.in.Add(o.in.Load())
	c.out.Add(o.out.Load())
}

// into adds c's totals to out.
func (c *connCounters) into(out *ServerCounters) {
	for _, op := range []Op{OpGet, OpSet, OpDelete} {
		for _, p := range []Protocol{Eager, Rendezvous} {
			out.Requests[op][p] += c.requests[op][p].Load()
		}
	}
	for st := range c.errors {
		if n := c.errors[st].Load(); n > 0 {
			out.Errors[strings.ToLower(wire.Status(st).String())] += n
		}
	}
	out.BytesIn += c.in.Load()
	out.BytesOut += c.out.Load()
}

// Counters reports the server's running totals. It holds the connection
// lock while it sums the open connections' counters.
func (s *Server) Counters() ServerCounters {
	c := ServerCounters{
		Accepted:      s.accepted.Load(),
		Refused:       make(map[Refusal]uint64, refusalCount),
		Requests:      map[Op]map[Protocol]uint64{},
		Errors:        map[string]uint64{},
		LeaseExpiries: s.expiries.Load(),
	}
	for r := range refusalCount {
		c.Refused[r] = s.refused[r].Load()
	}
	for _, op := range []Op{OpGet, OpSet, OpDelete} {
		c.Requests[op] = map[Protocol]uint64{Eager: 0, Rendezvous: 0}
	}
	s.connMu.Lock()
	defer s.connMu.Unlock()
	s.retired.into(&c)
	for sc := range s.conns {
		sc.ctr.into(&c)
	}
	return c
}

// refuse counts the connection under reason r unless it already counts
// under another.
func (sc *sconn) refuse(r Refusal) {
	if sc.refused.CompareAndSwap(false, true) {
		sc.s.refused[r].Add(1)
	}
}

// countReply counts what the reply h says about its request: a GET's
// protocol and any failure.
func (sc *sconn) countReply(h *wire.Header) {
	switch h.Type {
	case wire.GetReplyInline:
		sc.ctr.requests[OpGet][Eager].Add(1)
	case wire.GetReplyRdv:
		sc.ctr.requests[OpGet][Rendezvous].Add(1)
	}
	if h.Status != wire.OK && h.Status != wire.AuthRequired && h.Status != wire.ConnLimit && h.Status.Valid() {
		sc.ctr.errors[h.Status].Add(1)
	}
}
