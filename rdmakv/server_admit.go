package rdmakv

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Admission has two budgets. A connection counts against MaxHandshakes
// from accept until its HELLO is accepted (after authentication, if a
// secret is set), then against MaxConns until it closes. Opening a socket
// costs a peer nothing, so a full handshake budget does not turn a
// newcomer away: the oldest unfinished handshake is shed instead. A client that
// says HELLO promptly then always gets in, and a peer that only opens
// sockets holds nothing for long. MaxConns is enforced at HELLO, where
// only peers that speak the protocol arrive.
//
// Both transports deliver HELLO as an ordinary message after the
// connection is up (on verbs, once rdma_cm has accepted it), so this code
// governs them alike.

// accept registers a new connection as a handshake, shedding the oldest
// unfinished one if the budget is full.
func (s *Server) accept(c transport.Conn) transport.Handler {
	<-s.started
	if s.pool == nil {
		return nil // Listen failed; the transport drops the connection
	}
	sc := &sconn{s: s, c: c, leases: make(map[uint32]*lease)}
	sc.helloTimer = time.AfterFunc(s.cfg.HandshakeTimeout, func() {
		if !sc.helloDone.Load() {
			sc.refuse(RefusedHandshakeTimeout)
			sc.fault("no HELLO within %v", s.cfg.HandshakeTimeout)
		}
	})
	s.connMu.Lock()
	var oldest *sconn
	reason := s.shedReason()
	if reason != "" {
		oldest = s.handshakes.Remove(s.handshakes.Front()).(*sconn)
		oldest.handshake = nil
	}
	sc.handshake = s.handshakes.PushBack(sc)
	s.conns[sc] = struct{}{}
	s.connMu.Unlock()
	if oldest != nil {
		oldest.refuse(RefusedHandshakeShed)
		// Not on this goroutine: a verbs Close may wait for a connection
		// manager event, which this goroutine (verbs) delivers.
		s.background(func() { oldest.turnAway(slog.LevelInfo, "shedding handshake", reason) })
	}
	return sc
}

// shedReason says why a connection now arriving must cost the oldest
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
		return fmt.Sprintf("%d connections waiting for HELLO, the most MaxHandshakes allows; this one waited longest", n)
	case s.capacity > 0 && len(s.conns)+1 >= s.capacity:
		return fmt.Sprintf("%d connections open, the most the listener holds; this one waited longest for HELLO", len(s.conns)+1)
	}
	return ""
}

// admit moves sc from the handshake budget to MaxConns as its HELLO is
// accepted. It reports false, with sc closing, if sc was shed while its
// HELLO was on the way or MaxConns connections are served already.
func (s *Server) admit(sc *sconn) bool {
	s.connMu.Lock()
	if sc.handshake == nil {
		s.connMu.Unlock()
		return false // shed: its Close is under way
	}
	s.handshakes.Remove(sc.handshake)
	sc.handshake = nil
	n := s.served
	ok := n < s.cfg.MaxConns
	if ok {
		s.served++
		sc.served = true
	}
	s.connMu.Unlock()
	if !ok {
		sc.refuse(RefusedMaxConns)
		sc.turnAway(slog.LevelWarn, "refusing connection",
			fmt.Sprintf("%d connections open past HELLO, the most MaxConns allows", n))
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
