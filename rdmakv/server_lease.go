package rdmakv

import (
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// lease is an open rendezvous window: a read window on a committed slot
// (get) or a write window on a fresh slot (set grant).
type lease struct {
	token  uint32
	rkey   uint32
	window bool // a window was granted (false for empty values)
	write  bool
	// peerInv: the client was told it may invalidate the window itself
	// (wire.FlagPeerInvalidate).
	peerInv bool
	sl      *slot
	key     []byte // set grants: the key to commit under
	reqID   uint32 // set grants: the request the SET_REPLY answers
	// trace: a set grant whose SET_REPLY after a WRITE_WITH_IMM is timed
	// (wire.FlagTrace in its SET_RDV_REQ).
	trace    bool
	deadline time.Time
}

func (sc *sconn) newLease() *lease {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if k := len(sc.spare); k > 0 {
		l := sc.spare[k-1]
		sc.spare = sc.spare[:k-1]
		return l
	}
	return new(lease)
}

// recycle keeps a finished lease record (and its key buffer) for reuse.
func (sc *sconn) recycle(l *lease) {
	*l = lease{key: l.key[:0]}
	sc.mu.Lock()
	if len(sc.spare) < 64 {
		sc.spare = append(sc.spare, l)
	}
	sc.mu.Unlock()
}

// room reports whether the connection may open another lease. An honest
// client holds at most one per request in flight (it releases a read
// window as soon as its READ is done), so the cap only stops a client that
// asks for windows and never uses them from pinning memory and map entries
// until the leases run out. Only the delivery goroutine adds leases, so the
// answer holds until it does.
func (sc *sconn) room() bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return len(sc.leases) < sc.s.maxLeases()
}

// maxLeases is the per-connection lease cap: twice the in-flight limit
// clients are told, leaving room for releases still on their way.
func (s *Server) maxLeases() int { return 2 * s.cfg.RecvDepth }

// grantRoom reports whether the connection may open a set grant of n
// bytes: it must have room for a lease (see room), and then up to its
// share (ServerConfig.MaxGrantBytes) it always may, beyond it only while a
// quarter of the pool stays free. A client that asks for grants and never commits them then fills at most
// three quarters of the pool, and others' sets go on finding room, while
// an honest deep pipeline of large sets is held back only when the pool
// is nearly full anyway.
func (sc *sconn) grantRoom(n uint64) bool {
	sc.mu.Lock()
	leases, granted := len(sc.leases), uint64(sc.granted)
	sc.mu.Unlock()
	s := sc.s
	if leases >= s.maxLeases() {
		return false
	}
	if granted+n <= uint64(s.cfg.MaxGrantBytes) {
		return true
	}
	free := uint64(s.cfg.PoolSize) - uint64(s.store.alloc.Used())
	return free >= n && free-n >= uint64(s.cfg.PoolSize/4)
}

// unfile removes lease t from the table (sc.mu held).
func (sc *sconn) unfile(t uint32, l *lease) {
	delete(sc.leases, t)
	if l.write {
		sc.granted -= int64(l.sl.n)
		sc.grants--
	}
}

// add files a lease under a fresh token and returns the token (0 if the
// connection is gone). The caller must not touch l afterwards: the reaper
// may end it.
func (sc *sconn) add(l *lease) uint32 {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.gone {
		return 0
	}
	sc.nextToken++
	if sc.nextToken == 0 {
		sc.nextToken = 1
	}
	l.token = sc.nextToken
	l.deadline = time.Now().Add(sc.s.cfg.Lease)
	sc.leases[l.token] = l
	if l.write {
		sc.granted += int64(l.sl.n)
		sc.grants++
	}
	return l.token
}

// take removes the lease for token. stale reports a token that was issued
// but is no longer open (released, committed or expired).
func (sc *sconn) take(token uint32) (l *lease, stale bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if l, ok := sc.leases[token]; ok {
		sc.unfile(token, l)
		return l, false
	}
	return nil, token != 0 && token <= sc.nextToken
}

// peerInvalidates reports whether the client asked, in request f, to close
// the window rkey itself and the transport lets it.
func (sc *sconn) peerInvalidates(f *wire.Frame, rkey uint32) bool {
	if f.Flags&wire.FlagPeerInvalidate == 0 {
		return false
	}
	pi, ok := sc.c.(transport.PeerInvalidator)
	return ok && pi.PeerCanInvalidate(rkey)
}

// end closes a lease taken out of the table: revoke its window, then drop
// the reader reference (get) or free the uncommitted slot (set).
func (sc *sconn) end(l *lease) {
	if l.window {
		_ = sc.c.Revoke(l.rkey)
		l.window = false
	}
	if l.write {
		sc.s.store.discard(l.sl)
	} else {
		sc.s.store.unref(l.sl)
	}
	sc.recycle(l)
}

// grant opens a window on sl for the client. Where binds queue behind the
// connection's sends (transport.QueuedWindows, verbs) it does not wait for
// the bind: Deliver runs there on a goroutine every connection shares, and
// a peer that stopped taking its messages would hold the completion back.
// The send queue carries out the bind before the reply that names it.
func (sc *sconn) grant(sl *slot, access transport.Access) (uint32, error) {
	if q, ok := sc.c.(transport.QueuedWindows); ok {
		return q.GrantQueued(sc.s.pool, sl.off, sl.n, access)
	}
	return sc.c.Grant(sc.s.pool, sl.off, sl.n, access)
}

// revokeWaits reports whether closing l's window would wait on the peer
// (transport.QueuedWindows). A client that closes its windows itself, as
// rdmakv's does on verbs, never makes it so.
func (sc *sconn) revokeWaits(l *lease) bool {
	q, ok := sc.c.(transport.QueuedWindows)
	return ok && l.window && q.RevokeWaits(l.rkey)
}

// endOff is end for the delivery goroutine: a revoke that would wait on the
// peer runs on a goroutine of its own. There is at most one per lease the
// connection had open, so the lease cap bounds them.
func (sc *sconn) endOff(l *lease) {
	if !sc.revokeWaits(l) {
		sc.end(l)
		return
	}
	sc.s.background(func() { sc.end(l) })
}

// background runs f on a goroutine that Close waits for.
func (s *Server) background(f func()) {
	s.bgWG.Add(1)
	go func() {
		defer s.bgWG.Done()
		f()
	}()
}

// expired moves leases past their deadline out of the table into out.
func (sc *sconn) expired(now time.Time, out []*lease) []*lease {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	for t, l := range sc.leases {
		if now.After(l.deadline) {
			sc.unfile(t, l)
			out = append(out, l)
		}
	}
	return out
}

// drop ends every lease; the connection is gone.
func (sc *sconn) drop() {
	sc.mu.Lock()
	if sc.helloTimer != nil {
		sc.helloTimer.Stop()
	}
	sc.gone = true
	sc.cr.close()
	ls := make([]*lease, 0, len(sc.leases))
	for t, l := range sc.leases {
		sc.unfile(t, l)
		ls = append(ls, l)
	}
	sc.mu.Unlock()
	for _, l := range ls {
		sc.end(l)
	}
	sc.s.connMu.Lock()
	sc.s.release(sc)
	if _, open := sc.s.conns[sc]; open {
		sc.s.retired.add(&sc.ctr)
		delete(sc.s.conns, sc)
	}
	sc.s.connMu.Unlock()
}
