package rdmakv

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// Server defaults; a zero ServerConfig field takes these.
const (
	// DefaultPort is where a server listens unless told otherwise, and so
	// where a client given only a host connects. It is a string, as
	// net.JoinHostPort takes it.
	DefaultPort      = "7471"
	DefaultListen    = "127.0.0.1:" + DefaultPort
	DefaultPoolSize  = 256 << 20
	DefaultMaxEager  = 64 << 10
	DefaultMaxKey    = 1024
	DefaultMaxValue  = 64 << 20
	DefaultLease     = 10 * time.Second
	DefaultRecvDepth = 256
	// DefaultMaxRecvs is what a shared receive queue may grow to unless
	// told otherwise, as long as its buffers stay within
	// DefaultMaxRecvBytes (and at least RecvDepth).
	DefaultMaxRecvs     = 1024
	DefaultMaxRecvBytes = 64 << 20
	// DefaultHandshakeTimeout bounds how long a new connection may hold
	// the server's resources without saying HELLO.
	DefaultHandshakeTimeout = 5 * time.Second
	DefaultMaxConns         = 1024
	// DefaultStallTimeout is how long a client may leave its replies
	// untaken before it is dropped.
	DefaultStallTimeout = transport.DefaultStallTimeout
	// DefaultMaxHandshakes is room enough for many clients connecting at
	// once, each past HELLO within a round trip or two, while a peer that
	// opens sockets and says nothing holds at most this many.
	DefaultMaxHandshakes = 64
	// poolMinBlock is the buddy allocator's smallest block, server and
	// client alike.
	poolMinBlock = 64
	// MaxEagerLimit is the largest max eager a server takes and the
	// largest eager threshold a client may ask for: it keeps receive
	// buffers (one per posted receive) of a sane size.
	MaxEagerLimit = 16 << 20
)

// ServerConfig configures Listen. Zero fields take the defaults above.
type ServerConfig struct {
	// Listen is the host:port to bind; port 0 picks a free port.
	Listen string
	// Local, with Listen empty, binds a free port on an address this
	// machine's own clients reach over the transport: 127.0.0.1 on tcp, and
	// on verbs, where rdma_cm does not route loopback, the address of the
	// network interface an RDMA device is bound to. Addr says which.
	Local bool
	// Transport is one of Transports: TransportTCP (the default),
	// TransportVerbs, or TransportAuto (verbs, falling back to tcp when no
	// RDMA device is usable).
	Transport string
	// PoolSize is the registered value pool in bytes (multiple of 64).
	PoolSize int64
	// MaxEager bounds eager messages: key+value must be below it. Clients
	// whose eager threshold exceeds it are refused at Dial.
	MaxEager int
	// MaxKey is the longest key accepted (at most 65535).
	MaxKey int
	// MaxValue is the largest value accepted (at most PoolSize). Zero means
	// the smaller of 64 MiB and PoolSize.
	MaxValue int64
	// Lease is how long a rendezvous window stays open before the server
	// revokes it and reclaims what it pinned.
	Lease time.Duration
	// RecvDepth is the number of server receive buffers (per connection
	// on tcp, shared by all connections on verbs unless Receives says
	// otherwise), which the server
	// divides among its clients by credit (docs/PROTOCOL.md, "Credits"):
	// a client sends only into receives held for it, so none meets RNR.
	// It is also the in-flight limit each client is told, and a
	// connection may hold at most twice as many open rendezvous leases.
	RecvDepth int
	// MaxRecvs is the most receive buffers a shared receive queue (verbs)
	// grows to, RecvDepth at a time, when its connections' credit asks
	// for more than it holds; it never shrinks while the server runs.
	// Zero means DefaultMaxRecvs, or as many buffers of the largest eager
	// message as fit in DefaultMaxRecvBytes if fewer, and at least
	// RecvDepth; at most 256 steps of RecvDepth.
	MaxRecvs int
	// Receives chooses, on verbs, one shared receive queue (SRQ) for all
	// connections or RecvDepth receives per connection; ReceivesAuto, the
	// default, shares where the device has an SRQ (irdma's E810 and X722
	// have none). Per connection, each connection registers RecvDepth
	// buffers of the largest eager message, and the receive completion
	// queue bounds how many connect at once.
	Receives Receives
	// Poll selects busy or event-driven completion polling.
	Poll Poll
	// BusyIdle, with busy polling, is how long the receive poller spins
	// with no request arriving before it sleeps until the next one (verbs
	// only). While a client moves a large value one-sided the server has
	// nothing to poll for, and on a machine with few cores its spinning
	// slows that transfer. Zero spins without end.
	BusyIdle time.Duration
	// Device names the RDMA device (verbs only).
	Device string
	// TOS is the IP type-of-service byte of the server's traffic
	// (transport.Config.TOS): IP_TOS on tcp; on verbs the listening id's,
	// which iWARP's connections take, while a RoCE connection runs in the
	// class its client asked for.
	TOS int
	// NetConn, on tcp, reads and writes every accepted connection's
	// socket through the standard net.Conn instead of with raw system
	// calls (transport.Config.NetConn), as off Linux, where it is the only
	// path. Verbs ignores it.
	NetConn bool
	// MaxGrantBytes is each connection's share of the pool for
	// uncommitted set grants: it may always hold that much, and more only
	// while a quarter of the pool stays free for other connections; past
	// that its rendezvous sets get NO_SPACE until it commits or its grants
	// expire. Zero means the larger of MaxValue and a quarter of the pool.
	MaxGrantBytes int64
	// HandshakeTimeout is how long a new connection may take to send
	// HELLO; one that has not by then is dropped with a log line.
	HandshakeTimeout time.Duration
	// StallTimeout is how long a client may leave its replies untaken
	// (its receive queue full, its socket unread) before it is dropped
	// with a log line, freeing what it holds; other clients are served
	// meanwhile. Zero means DefaultStallTimeout.
	StallTimeout time.Duration
	// MaxConns bounds the connections served at once, those past HELLO.
	// One more is answered CONN_LIMIT when its HELLO arrives and reset,
	// with a log line, and its client's Dial fails saying so.
	MaxConns int
	// MaxHandshakes bounds the connections that have not yet said HELLO
	// (nor passed authentication, with AuthSecret), which do not count
	// against MaxConns. A new connection that finds as many waiting is
	// not refused: the one that has waited longest without saying
	// anything is reset, with a log line, and never one whose HELLO has
	// arrived (see server_admit.go), so a client that says HELLO promptly
	// gets in however many idle sockets others hold.
	MaxHandshakes int
	// AuthSecret, when set, makes clients prove they know it before
	// anything is granted to them: the server answers HELLO with a fresh
	// challenge and serves only a client whose second HELLO carries the
	// HMAC of it (WithAuth); the secret never crosses the wire. At least
	// MinSecretLen bytes; ReadSecret loads one from a file.
	AuthSecret []byte
	// Logger receives connection faults; nil means slog.Default().
	Logger *slog.Logger
}

func (c ServerConfig) withDefaults() ServerConfig {
	if c.Listen == "" && !c.Local {
		c.Listen = DefaultListen
	}
	c.Transport = cmp.Or(c.Transport, DefaultTransport)
	c.PoolSize = cmp.Or(c.PoolSize, DefaultPoolSize)
	c.MaxEager = cmp.Or(c.MaxEager, DefaultMaxEager)
	c.MaxKey = cmp.Or(c.MaxKey, DefaultMaxKey)
	c.MaxValue = cmp.Or(c.MaxValue, min(DefaultMaxValue, c.PoolSize))
	c.Lease = cmp.Or(c.Lease, DefaultLease)
	c.RecvDepth = cmp.Or(c.RecvDepth, DefaultRecvDepth)
	if c.MaxRecvs == 0 {
		fit := DefaultMaxRecvBytes / c.recvSize()
		c.MaxRecvs = max(min(DefaultMaxRecvs, fit), c.RecvDepth)
	}
	c.MaxGrantBytes = cmp.Or(c.MaxGrantBytes, max(c.MaxValue, c.PoolSize/4))
	c.HandshakeTimeout = cmp.Or(c.HandshakeTimeout, DefaultHandshakeTimeout)
	c.StallTimeout = cmp.Or(c.StallTimeout, DefaultStallTimeout)
	c.MaxConns = cmp.Or(c.MaxConns, DefaultMaxConns)
	c.MaxHandshakes = cmp.Or(c.MaxHandshakes, DefaultMaxHandshakes)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// Validate reports every problem with the configuration (after defaults).
func (c ServerConfig) Validate() error {
	c = c.withDefaults()
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if err := CheckTransport(c.Transport); err != nil {
		errs = append(errs, err)
	}
	if c.Local && c.Listen != "" {
		bad("listen %q and local: give one", c.Listen)
	}
	if c.PoolSize < poolMinBlock || c.PoolSize%poolMinBlock != 0 {
		bad("pool size %d: must be a positive multiple of %d bytes", c.PoolSize, poolMinBlock)
	}
	if c.PoolSize > 1<<40 {
		bad("pool size %d: above 1 TiB", c.PoolSize)
	}
	if c.MaxEager < 1 || c.MaxEager > MaxEagerLimit {
		bad("max eager %d: must be between 1 and %d", c.MaxEager, MaxEagerLimit)
	}
	if c.MaxKey < 1 || c.MaxKey > wire.MaxKeyLen {
		bad("max key %d: must be between 1 and %d", c.MaxKey, wire.MaxKeyLen)
	}
	if c.MaxValue < 1 || c.MaxValue > c.PoolSize {
		bad("max value %d: must be between 1 and the pool size %d", c.MaxValue, c.PoolSize)
	}
	if c.MaxValue > 1<<32-1 {
		bad("max value %d: above 4 GiB", c.MaxValue)
	}
	if c.Lease < time.Millisecond || c.Lease > time.Duration(1<<32-1)*time.Millisecond {
		bad("lease %v: must be at least 1ms and fit 32-bit milliseconds", c.Lease)
	}
	if c.RecvDepth < 1 || c.RecvDepth > 1<<16 {
		bad("recv depth %d: must be between 1 and 65536", c.RecvDepth)
	} else if c.MaxRecvs < c.RecvDepth || c.MaxRecvs > 1<<16 {
		bad("max recvs %d: must be between the recv depth %d and 65536", c.MaxRecvs, c.RecvDepth)
	}
	if c.TOS < 0 || c.TOS > 255 {
		bad("tos %d: must be between 0 and 255", c.TOS)
	}
	if c.Receives > ReceivesPerConn {
		bad("receives %d: want auto, shared or per-connection", c.Receives)
	}
	if c.Receives == ReceivesShared && c.Transport == TransportTCP {
		bad("receives shared: tcp gives each connection its own; shared needs transport verbs")
	}
	if c.Poll != PollEvent && c.Poll != PollBusy {
		bad("poll %d: want event or busy", c.Poll)
	}
	if c.MaxGrantBytes < c.MaxValue || c.MaxGrantBytes > c.PoolSize {
		bad("max grant bytes %d: must be between the max value %d and the pool size %d", c.MaxGrantBytes, c.MaxValue, c.PoolSize)
	}
	if c.HandshakeTimeout < time.Millisecond {
		bad("handshake timeout %v: must be at least 1ms", c.HandshakeTimeout)
	}
	if c.StallTimeout < time.Millisecond {
		bad("stall timeout %v: must be at least 1ms", c.StallTimeout)
	}
	if c.MaxConns < 1 || c.MaxConns > 1<<20 {
		bad("max conns %d: must be between 1 and %d", c.MaxConns, 1<<20)
	}
	if c.MaxHandshakes < 1 || c.MaxHandshakes > 1<<20 {
		bad("max handshakes %d: must be between 1 and %d", c.MaxHandshakes, 1<<20)
	}
	if c.BusyIdle < 0 {
		bad("busy idle %v: must not be negative", c.BusyIdle)
	}
	if c.AuthSecret != nil && len(c.AuthSecret) < MinSecretLen {
		bad("auth secret of %d bytes: must be at least %d", len(c.AuthSecret), MinSecretLen)
	}
	if c.BusyIdle > 0 && c.Poll != PollBusy {
		bad("busy idle %v: only applies to busy polling", c.BusyIdle)
	}
	return errors.Join(errs...)
}

// recvSize is the size of each of the server's receive buffers: the
// largest message a client may send it.
func (c ServerConfig) recvSize() int {
	return wire.MaxHeaderSize + max(c.MaxEager, c.MaxKey, wire.HelloBodySize)
}
