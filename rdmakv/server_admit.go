package rdmakv

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// Admission has two budgets. A connection counts against MaxHandshakes
// from accept until its HELLO is accepted (after authentication, if a
// secret is set), then against MaxConns until it closes. Opening a socket
// costs a peer nothing, so a full handshake budget does not turn a
// newcomer away: the connection that has waited longest without saying
// anything is shed instead, and one whose HELLO has arrived (queued in
// the transport, or being delivered) never is. A client that says HELLO
// promptly then always gets in, however long a busy server takes to read
// it, and a peer that only opens sockets holds nothing for long. When
// every connection waiting has spoken, none is shed: each will be
// admitted, refused or challenged without waiting on its peer, so the
// budget is over only until then. MaxConns is enforced at HELLO, where
// only peers that speak the protocol arrive. A connection shed or refused
// is reset where the transport can (transport.Resetter), so its peer
// learns at once and nothing of it lingers.
//
// Both transports deliver HELLO as an ordinary message after the
// connection is up (on verbs, once rdma_cm has accepted it), so this code
// governs them alike. Whether a HELLO not yet delivered has arrived only
// a transport that implements transport.Spoken can tell (TCP); on verbs a
// HELLO counts once its completion is being delivered.

// accept registers a new connection as a handshake, shedding the longest
// silent one, perhaps itself, if the budget is full.
func (s *Server) accept(c transport.Conn) transport.Handler {
	<-s.started
	if s.pool == nil {
		return nil // Listen failed; the transport drops the connection
	}
	sc := &sconn{s: s, c: c, leases: make(map[uint32]*lease)}
	sc.mu.Lock()
	sc.helloTimer = time.AfterFunc(s.cfg.HandshakeTimeout, sc.helloExpired)
	sc.mu.Unlock()
	s.connMu.Lock()
	reason := s.shedReason()
	sc.handshake = s.handshakes.PushBack(sc)
	s.conns[sc] = struct{}{}
	var shed *sconn
	if reason != "" {
		if shed = s.longestSilent(); shed != nil {
			s.handshakes.Remove(shed.handshake)
			shed.handshake = nil
		}
	}
	s.connMu.Unlock()
	if shed != nil {
		shed.refuse(RefusedHandshakeShed)
		// Not on this goroutine: a verbs Close may wait for a connection
		// manager event, which this goroutine (verbs) delivers.
		s.background(func() { shed.turnAway(slog.LevelInfo, "shedding handshake", reason, nil) })
	}
	return sc
}

// helloExpired drops a connection that has not said HELLO within the
// handshake timeout, unless its HELLO has arrived: the server is only slow
// to read it then, and the timer runs again.
func (sc *sconn) helloExpired() {
	if sc.helloDone.Load() {
		return
	}
	if sc.spoken() {
		sc.mu.Lock()
		if !sc.gone {
			sc.helloTimer.Reset(sc.s.cfg.HandshakeTimeout)
		}
		sc.mu.Unlock()
		return
	}
	sc.refuse(RefusedHandshakeTimeout)
	sc.fault("no HELLO within %v", sc.s.cfg.HandshakeTimeout)
}

// shedReason says why a connection now arriving must cost a silent
// handshake its place, or is "" if it need not; the caller holds connMu.
// Besides MaxHandshakes, a listener with a fixed capacity must keep a
// place free for the next newcomer, which it would otherwise refuse
// before the server hears of it.
func (s *Server) shedReason() string {
	n := s.handshakes.Len()
	switch {
	case n == 0:
		return ""
	case n >= s.cfg.MaxHandshakes:
		return fmt.Sprintf("%d connections waiting for HELLO, the most MaxHandshakes allows; this one waited longest of those that sent none", n)
	case s.capacity > 0 && len(s.conns)+1 >= s.capacity:
		return fmt.Sprintf("%d connections open, the most the listener holds; this one waited longest for HELLO of those that sent none", len(s.conns)+1)
	}
	return ""
}

// longestSilent is the handshake that has waited longest of those whose
// peer has sent nothing, or nil if every one has spoken; the caller holds
// connMu.
func (s *Server) longestSilent() *sconn {
	for e := s.handshakes.Front(); e != nil; e = e.Next() {
		if sc := e.Value.(*sconn); !sc.spoken() {
			return sc
		}
	}
	return nil
}

// spoken reports whether sc's peer has a message on the way in: being
// delivered, or arrived where the transport can tell (transport.Spoken).
func (sc *sconn) spoken() bool {
	if sc.hearing.Load() {
		return true
	}
	sp, ok := sc.c.(transport.Spoken)
	return ok && sp.Spoken()
}

// admit moves sc from the handshake budget to MaxConns as its HELLO is
// accepted. It reports false, with sc closing, if sc was shed while its
// HELLO was on the way or MaxConns connections are served already.
func (s *Server) admit(sc *sconn, reqID uint32) bool {
	s.connMu.Lock()
	if sc.handshake == nil {
		s.connMu.Unlock()
		return false // shed: its Close is under way
	}
	s.handshakes.Remove(sc.handshake)
	sc.handshake = nil
	n := s.served
	reason := ""
	switch {
	case n >= s.cfg.MaxConns:
		reason = fmt.Sprintf("%d connections open past HELLO, the most MaxConns allows", n)
	case s.credit != nil && n >= s.credit.maxConns():
		reason = fmt.Sprintf("%d connections open past HELLO, each holding at least one of the %d shared receives (RecvDepth) kept for them",
			n, s.credit.maxConns())
	default:
		s.served++
		sc.served = true
	}
	s.connMu.Unlock()
	if reason != "" {
		sc.refuse(RefusedMaxConns)
		// CONN_LIMIT before the reset, so the client does not try again.
		sc.turnAway(slog.LevelWarn, "refusing connection", reason,
			func() { sc.send(wire.Header{Type: wire.HelloReply, Status: wire.ConnLimit, ReqID: reqID}, nil, nil) })
		return false
	}
	s.accepted.Add(1)
	return true
}

// release takes sc out of whichever budget it counts against; the caller
// holds connMu.
func (s *Server) release(sc *sconn) {
	if sc.handshake != nil {
		s.handshakes.Remove(sc.handshake)
		sc.handshake = nil
	}
	if sc.served {
		s.served--
		sc.served = false
	}
}
