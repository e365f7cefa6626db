package rdmakv

import (
	"container/list"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/netip"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvbench/kvbench/rdmakv/internal/buddy"
	"github.com/kvbench/kvbench/rdmakv/internal/traceclock"
	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// Server is a running rdmakv server: one registered value pool shared by
// every connection, a key map, and a reaper that revokes expired
// rendezvous windows.
type Server struct {
	cfg    ServerConfig
	log    *slog.Logger
	ln     transport.Listener
	pool   transport.Region
	mem    []byte
	store  *store
	limits [wire.LimitsSize]byte

	connMu sync.Mutex
	conns  map[*sconn]struct{}
	// handshakes holds the connections not yet past HELLO, oldest first;
	// served counts those past it. Both are admission's (server_admit.go),
	// under connMu.
	handshakes list.List
	served     int
	// capacity is the most connections the listener holds, if it says
	// (transport.Bounded); 0 if it does not.
	capacity int
	// credit is the pool of a shared receive queue (nil when receives
	// are per connection); creditConns counts the connections holding
	// part of it.
	credit      *creditPool
	creditConns atomic.Int64
	// retired holds the totals of closed connections (under connMu).
	retired connCounters

	accepted atomic.Uint64
	refused  [refusalCount]atomic.Uint64
	expiries atomic.Uint64

	// started is closed once Listen has finished setting up (or failed):
	// the transport may accept a connection before the pool is registered.
	started chan struct{}

	stop chan struct{}
	// bgWG counts the reaper and the goroutines it, and deliveries whose
	// revoke would wait on a peer (sconn.endOff), start.
	bgWG      sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Listen starts a server; it is serving when Listen returns (handle_server
// in the original design).
func Listen(cfg ServerConfig) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("rdmakv: server config: %w", err)
	}
	if err := traceclock.Init(); err != nil {
		return nil, fmt.Errorf("rdmakv: %w", err)
	}
	cfg = cfg.withDefaults()
	alloc, err := buddy.New(int(cfg.PoolSize), poolMinBlock)
	if err != nil {
		return nil, fmt.Errorf("rdmakv: %w", err)
	}
	s := &Server{
		cfg:     cfg,
		log:     cfg.Logger,
		store:   newStore(alloc),
		conns:   make(map[*sconn]struct{}),
		started: make(chan struct{}),
		stop:    make(chan struct{}),
	}
	s.retired.open()
	lim := wire.Limits{
		PoolSize:    uint64(cfg.PoolSize),
		MaxValue:    uint64(cfg.MaxValue),
		MaxEager:    uint32(cfg.MaxEager),
		MaxKey:      uint32(cfg.MaxKey),
		LeaseMillis: uint32(cfg.Lease / time.Millisecond),
		MaxInflight: uint32(cfg.RecvDepth),
	}
	lim.Encode(s.limits[:])
	tcfg := cfg.transportConfig()
	err = withNetwork(cfg.Transport, s.log, func(n transport.Network) (Info, error) {
		addr := cfg.Listen
		if cfg.Local {
			ip, err := n.LocalAddr()
			if err != nil {
				return Info{}, err
			}
			addr = netip.AddrPortFrom(ip, 0).String()
		}
		ln, err := n.Listen(addr, tcfg, s.accept)
		if err != nil {
			return Info{}, err
		}
		s.ln = ln
		return ln.Info(), nil
	})
	if err != nil {
		close(s.started)
		where := cfg.Listen
		if cfg.Local {
			where = "a local address"
		}
		return nil, fmt.Errorf("rdmakv: listen on %s: %w", where, err)
	}
	s.pool, err = s.ln.Register(int(cfg.PoolSize), transport.AccessRemoteRead|transport.AccessRemoteWrite|transport.AccessGrantOnly)
	if err != nil {
		s.pool = nil
		close(s.started) // before Close, which waits for accept callbacks
		s.ln.Close()
		return nil, fmt.Errorf("rdmakv: register a %d-byte value pool: %w", cfg.PoolSize, err)
	}
	s.mem = s.pool.Bytes()
	if b, ok := s.ln.(transport.Bounded); ok {
		s.capacity = b.MaxConns()
	}
	if sr, ok := s.ln.(transport.SharedReceives); ok {
		s.credit = newCreditPool(sr.SharedRecvs(), sr.MaxSharedRecvs(), cfg.MaxHandshakes)
		s.credit.grow = func() { s.background(func() { s.growRecvs(sr) }) }
	}
	s.bgWG.Add(1)
	go s.reaper()
	close(s.started)
	return s, nil
}

// Addr is the address the server is bound to.
func (s *Server) Addr() string { return s.ln.Addr() }

// Info describes the server's transport (after "auto" is settled), device
// and polling mode.
func (s *Server) Info() Info { return s.ln.Info() }

// Close stops the server: every connection is closed, windows revoked and
// the pool deregistered. Idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		err := s.ln.Close()
		close(s.stop)
		s.bgWG.Wait()
		// Connections closed by the listener have run Closed, which
		// revoked their windows; anything left is released here.
		s.connMu.Lock()
		left := slices.Collect(maps.Keys(s.conns))
		s.connMu.Unlock()
		for _, c := range left {
			c.drop()
		}
		s.closeErr = errors.Join(err, s.pool.Close())
	})
	return s.closeErr
}

// reaper revokes rendezvous windows whose lease ran out: a get whose
// client never released, a set grant never committed.
func (s *Server) reaper() {
	defer s.bgWG.Done()
	tick := max(s.cfg.Lease/4, 5*time.Millisecond)
	t := time.NewTicker(tick)
	defer t.Stop()
	var r reaping
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.reap(now, &r)
		}
	}
}

// reaping is the reaper's scratch, reused from one pass to the next.
type reaping struct {
	conns   []*sconn
	expired []*lease
}

// reap ends the leases past their deadline at now.
func (s *Server) reap(now time.Time, r *reaping) {
	r.conns = r.conns[:0]
	s.connMu.Lock()
	for c := range s.conns {
		r.conns = append(r.conns, c)
	}
	s.connMu.Unlock()
	for _, c := range r.conns {
		r.expired = c.expired(now, r.expired[:0])
		s.expiries.Add(uint64(len(r.expired)))
		for _, l := range r.expired {
			// Revoke waits for an access still moving bytes through the
			// window (a READ to a client that stopped reading), so one
			// stuck lease must not hold up every other expiry.
			s.background(func() {
				if l.peerInv {
					// The client may still invalidate this window itself;
					// invalidating a window twice is an error that kills
					// the connection (and crashes rxe on some kernels), so
					// end the connection first: its QP then takes no more
					// packets.
					c.fault("lease %d ran out with a window the client was to close still open", l.token)
				}
				c.end(l)
			})
		}
	}
}
