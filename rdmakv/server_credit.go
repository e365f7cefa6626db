package rdmakv

import (
	"sync"
	"sync/atomic"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Credit-based flow control (docs/PROTOCOL.md, "Credits"): a client never
// has more messages that take a receive of the server's (requests,
// WRITE_WITH_IMMs) in flight than the receives the server holds for it.
// Every message from the server says how many the client may have sent
// in all; the server raises it as it reposts the receives the client's
// messages used, up to the connection's target.
//
// On a transport whose connections share one receive queue (verbs' SRQ)
// the receives are a pool: each connection past HELLO holds one of them
// for as long as it lives (its base, so it can always make progress), and
// takes more up to a fair share, the most the pool may grow to less a
// reserve for handshakes divided among the connections, never more than
// the pool holds now; a pool short of what is asked grows. A
// connection above its share, as one is when others arrive, gets back
// none of what it uses until it is below. On a transport with receives
// per connection (tcp) there is no pool: a connection may hold up to the
// server's RecvDepth.

// creditPool is the receives of a shared receive queue, promised to
// connections. The queue grows, a RecvDepth at a time up to MaxRecvs,
// when connections want more than it holds (grow).
type creditPool struct {
	posted   atomic.Int64 // receives the shared queue keeps posted
	most     atomic.Int64 // what posted may grow to
	reserve  int64        // of posted, never promised beyond bases: handshakes' room
	promised atomic.Int64
	growing  atomic.Bool
	grow     func() // starts a growth; it clears growing when done
}

// newCreditPool is the pool of a queue of posted receives that may grow
// to most, keeping reserve of them for messages that come before a
// connection holds credit (its HELLOs).
func newCreditPool(posted, most, maxHandshakes int) *creditPool {
	p := &creditPool{reserve: int64(poolReserve(posted, maxHandshakes))}
	p.posted.Store(int64(posted))
	p.most.Store(int64(max(most, posted)))
	return p
}

// poolReserve is how many of a pool's posted receives stay for
// handshakes.
func poolReserve(posted, maxHandshakes int) int {
	return min(max(1, min(maxHandshakes, posted/8)), posted-1)
}

// shared is the receives of the pool's queue; 0 for no pool.
func (p *creditPool) shared() int {
	if p == nil {
		return 0
	}
	return int(p.posted.Load())
}

// maxConns is how many connections the pool can give a base.
func (p *creditPool) maxConns() int { return int(p.most.Load() - p.reserve) }

// extras takes up to n receives beyond a base, as long as the reserve
// stays unpromised, and returns how many it took. Short of n, it has the
// queue grown if it may, for the next to ask.
func (p *creditPool) extras(n int64) int64 {
	for {
		have, posted := p.promised.Load(), p.posted.Load()
		got := min(n, posted-p.reserve-have)
		if got < n && posted < p.most.Load() && p.grow != nil && p.growing.CompareAndSwap(false, true) {
			p.grow()
		}
		if got <= 0 {
			return 0
		}
		if p.promised.CompareAndSwap(have, have+got) {
			return got
		}
	}
}

// connCredit is one connection's credit. The delivery goroutine counts
// messages in and out; a reply sent from elsewhere (a commit whose revoke
// waits) reads the credit too, so everything is under mu.
type connCredit struct {
	mu   sync.Mutex
	on   atomic.Bool // counting: the connection is past HELLO (set under mu)
	want int64       // the most it could use: two receives per request in flight
	// limit is the credit last told the client; released counts its
	// messages whose receives are reposted.
	limit, released uint32
	pool            *creditPool // nil: receives per connection
	conns           *atomic.Int64
}

// open starts counting for a connection past HELLO whose client keeps
// depth requests in flight: a rendezvous request takes a second receive
// (its commit or release) while the next request may already take one.
func (cc *connCredit) open(s *Server, depth int) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.on.Store(true)
	cc.want = int64(min(2*max(depth, 1), s.cfg.RecvDepth))
	cc.pool, cc.conns = s.credit, &s.creditConns
	if cc.pool != nil {
		cc.pool.promised.Add(1) // the base
		cc.conns.Add(1)
	}
}

// counting reports whether the connection's messages count against its
// credit: those after HELLO.
func (cc *connCredit) counting() bool { return cc.on.Load() }

// release counts the receive of a message back. Above the base, it goes
// back to the pool; the connection takes it again when it is told more.
// It reports whether the client has used all the credit it was told of
// and none of it is in flight, when only a CREDIT can tell it more.
func (cc *connCredit) release(counted bool) (starved bool) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.releaseLocked(counted)
}

func (cc *connCredit) releaseLocked(counted bool) (starved bool) {
	if !cc.on.Load() || !counted {
		return false
	}
	cc.released++
	if cc.pool != nil && cc.allocLocked() >= 1 {
		cc.pool.promised.Add(-1)
	}
	return cc.limit == cc.released
}

// stamp is the credit to tell the client now: raised toward the
// connection's target as far as the pool allows, and never lowered.
func (cc *connCredit) stamp() uint32 {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.stampLocked()
}

// releaseStamp is release then stamp, for a reply to the message
// released: one lock for both.
func (cc *connCredit) releaseStamp(counted bool) uint32 {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.releaseLocked(counted)
	return cc.stampLocked()
}

func (cc *connCredit) stampLocked() uint32 {
	if !cc.on.Load() {
		return 0
	}
	alloc := cc.allocLocked()
	if alloc == 0 {
		cc.limit++ // the base, which the connection holds throughout
		alloc = 1
	}
	if need := cc.target() - alloc; need > 0 {
		if cc.pool != nil {
			need = cc.pool.extras(need)
		}
		cc.limit += uint32(need)
	}
	return cc.limit
}

// target is the connection's fair share.
func (cc *connCredit) target() int64 {
	if cc.pool == nil {
		return cc.want
	}
	share := (cc.pool.most.Load() - cc.pool.reserve) / max(cc.conns.Load(), 1)
	return max(1, min(cc.want, share))
}

// close gives back what the connection held.
func (cc *connCredit) close() {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if !cc.on.Load() {
		return
	}
	cc.on.Store(false)
	if cc.pool != nil {
		cc.pool.promised.Add(-max(cc.allocLocked(), 1))
		cc.conns.Add(-1)
	}
}

// held is what the connection holds of the server's receives: its
// credit not yet used up, and at least its base.
func (cc *connCredit) held() int64 {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if !cc.on.Load() {
		return 0
	}
	return max(cc.allocLocked(), 1)
}

// allocLocked is the credit told and not yet used up: limit and released
// count modulo 2^32.
func (cc *connCredit) allocLocked() int64 { return int64(int32(cc.limit - cc.released)) }

// growRecvs grows the shared receive queue by a step. A queue that cannot
// grow (the device's memory, a closing server) stays as it is, and says
// why once.
func (s *Server) growRecvs(sr transport.SharedReceives) {
	p := s.credit
	defer p.growing.Store(false)
	n, err := sr.GrowRecvs()
	if n > 0 {
		p.posted.Store(int64(n))
	}
	if err != nil {
		p.most.Store(p.posted.Load())
		select {
		case <-s.stop:
		default:
			s.log.Warn("rdmakv: shared receives not grown", "posted", n, "err", err)
		}
		return
	}
	s.log.Debug("rdmakv: shared receives grown", "posted", n)
}
