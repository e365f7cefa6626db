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
	// RequestsBySize splits Requests by the size class of key plus value:
	// a SET's as its request says, a GET's by the value it found (a miss
	// by its key alone), a DELETE's by its key. Only classes with requests
	// appear.
	RequestsBySize map[RequestClass]uint64
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

// RequestClass is one operation, protocol and size class of requests.
type RequestClass struct {
	Op       Op
	Protocol Protocol
	Class    SizeClass
}

// connCounters are one connection's totals. Only its delivery goroutine
// (and the rare background commit) adds to them, so connections served on
// different cores never contend for a counter; when the connection closes
// its totals move into the server's.
type connCounters struct {
	// requests is set at HELLO, before which a connection serves no
	// request, so that the many a server may hold before HELLO do not
	// carry its 1.6 KB.
	requests atomic.Pointer[classCounts]
	errors   [wire.StatusCount]atomic.Uint64
	in, out  atomic.Uint64
}

// classCounts counts requests by op-1, protocol-1 and size class: one
// counter a request, as without the classes, whose sums are Requests.
type classCounts [OpDelete][Rendezvous][LastSizeClass + 1]atomic.Uint64

// open gives c its request counters.
func (c *connCounters) open() { c.requests.Store(new(classCounts)) }

// count counts a request of op that went by protocol p with n bytes of
// key plus value. Only a connection past HELLO has requests to count.
func (c *connCounters) count(op Op, p Protocol, n uint64) {
	c.requests.Load()[op-1][p-1][SizeClassOf(n)].Add(1)
}

// add moves o's totals into c, which is open.
func (c *connCounters) add(o *connCounters) {
	if r := o.requests.Load(); r != nil {
		to := c.requests.Load()
		for op := range r {
			for p := range r[op] {
				for k := range r[op][p] {
					to[op][p][k].Add(r[op][p][k].Load())
				}
			}
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
	if r := c.requests.Load(); r != nil {
		r.into(out)
	}
	for st := range c.errors {
		if n := c.errors[st].Load(); n > 0 {
			out.Errors[strings.ToLower(wire.Status(st).String())] += n
		}
	}
	out.BytesIn += c.in.Load()
	out.BytesOut += c.out.Load()
}

// into adds r's counts to out's Requests and RequestsBySize.
func (r *classCounts) into(out *ServerCounters) {
	for op := range r {
		for p := range r[op] {
			for k := range r[op][p] {
				if n := r[op][p][k].Load(); n > 0 {
					rc := RequestClass{Op(op + 1), Protocol(p + 1), SizeClass(k)}
					out.Requests[rc.Op][rc.Protocol] += n
					out.RequestsBySize[rc] += n
				}
			}
		}
	}
}

// Counters reports the server's running totals. It holds the connection
// lock while it sums the open connections' counters.
func (s *Server) Counters() ServerCounters {
	c := ServerCounters{
		Accepted:       s.accepted.Load(),
		Refused:        make(map[Refusal]uint64, refusalCount),
		Requests:       map[Op]map[Protocol]uint64{},
		RequestsBySize: map[RequestClass]uint64{},
		Errors:         map[string]uint64{},
		LeaseExpiries:  s.expiries.Load(),
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
// protocol and size (its key's, which the reply does not carry, and the
// value's) and any failure.
func (sc *sconn) countReply(h *wire.Header) {
	switch h.Type {
	case wire.GetReplyInline:
		sc.ctr.count(OpGet, Eager, uint64(sc.getKey)+uint64(h.ValueLen))
	case wire.GetReplyRdv:
		sc.ctr.count(OpGet, Rendezvous, uint64(sc.getKey)+h.Length)
	}
	if h.Status != wire.OK && h.Status != wire.AuthRequired && h.Status != wire.ConnLimit && h.Status.Valid() {
		sc.ctr.errors[h.Status].Add(1)
	}
}
