// Package transport is the seam between the rdmakv protocol and the wire
// below it. It names the handful of verbs primitives the protocol needs:
// registered memory regions with remote keys, two-sided SEND/RECV, and
// one-sided RDMA WRITE, WRITE_WITH_IMM and READ. The verbs transport maps
// them onto libibverbs one to one; the TCP transport emulates them, checking
// key and bounds on every one-sided access as an RNIC would.
//
// Completion semantics follow RC verbs: a one-sided call returns once the
// operation has completed (for WRITE, the target has placed the data; for
// READ, the data is in local memory). Send returns once the message has been
// copied out of the caller's slices, so they may be reused at once.
//
// Receives are pushed to a Handler. A Message is a view into registered
// receive memory that stays valid, and keeps its receive buffer out of
// circulation, until Release. Holding Messages for long starves the
// receive queue; the peer then waits (RNR), so release promptly.
package transport

import (
	"context"
	"errors"
	"net/netip"
	"time"
)

// Access says what a region's memory may be used for.
type Access uint8

const (
	// AccessLocal allows local use only (send staging, receive and READ
	// targets).
	AccessLocal Access = 0
	// AccessRemoteRead lets a peer RDMA READ from the region.
	AccessRemoteRead Access = 1 << 0
	// AccessRemoteWrite lets a peer RDMA WRITE (and WRITE_WITH_IMM) into the
	// region.
	AccessRemoteWrite Access = 1 << 1
	// AccessGrantOnly, beside remote rights, keeps them to Grant's
	// windows where the transport has them: the region's own RKey then
	// grants no remote access at all, so a peer cannot reach beyond its
	// windows by guessing it. Where there are no windows (Grant returns
	// the region's key) the region takes the remote rights asked for.
	AccessGrantOnly Access = 1 << 2
)

// AccessKnown is every Access bit.
const AccessKnown = AccessRemoteRead | AccessRemoteWrite | AccessGrantOnly

// Region is registered memory. Its bytes come from C or mmap, never from the
// Go heap, so the RNIC may touch them at any time.
type Region interface {
	// Bytes is the whole region. The slice stays valid until Close.
	Bytes() []byte
	// Addr is the address a peer names in one-sided operations for offset 0.
	Addr() uint64
	// RKey is the remote key a peer presents with one-sided operations.
	RKey() uint32
	// LKey is the local key (meaningful to verbs only; 0 on TCP).
	LKey() uint32
	// Close deregisters and frees the memory. Idempotent.
	Close() error
}

// MessageKind tells what completed on the receive side.
type MessageKind uint8

const (
	// KindRecv is a two-sided SEND landing in a receive buffer.
	KindRecv MessageKind = iota + 1
	// KindWriteImm is a WRITE_WITH_IMM from the peer: the payload already sits
	// in the target region; Data is empty, Imm and Len describe it.
	KindWriteImm
)

// Message is one receive completion. Transports preallocate these and reuse
// them after Release, so a Message must not be touched after Release.
type Message struct {
	Kind MessageKind
	// Data is the received bytes for KindRecv; a view into registered memory.
	Data []byte
	// Imm is the immediate value of a KindWriteImm completion.
	Imm uint32
	// Len is the byte count of a KindWriteImm completion.
	Len int

	releaser Releaser
	slot     int
}

// Releaser hands a receive buffer back to its transport.
type Releaser interface {
	ReleaseMessage(slot int)
}

// Bind is called by transports when they fill a preallocated Message.
func (m *Message) Bind(r Releaser, slot int) { m.releaser, m.slot = r, slot }

// Release returns the receive buffer to the transport, which reposts it.
// Calling Release on an already released Message is a no-op.
func (m *Message) Release() {
	r := m.releaser
	if r == nil {
		return
	}
	m.releaser = nil
	r.ReleaseMessage(m.slot)
}

// Handler receives what arrives on a connection. Calls for one connection
// come from one goroutine, in arrival order; they must not block for long
// (they run on the transport's completion path).
type Handler interface {
	// Deliver hands over one receive completion. The handler owns m until it
	// calls m.Release, which it must do exactly once.
	Deliver(c Conn, m *Message)
	// Closed reports that the connection is gone (peer closed, fatal error,
	// or local Close). err is nil for an orderly local Close. It is called
	// once per connection, after the last Deliver.
	Closed(c Conn, err error)
}

// Conn is one reliable connection (an RC QP on verbs). All methods are safe
// for concurrent use.
type Conn interface {
	// Send posts a two-sided message made of up to three parts (header, key,
	// value; any may be nil). Their total must not exceed the peer's receive
	// buffer size (Config.MaxMessage agreed out of band), else the peer drops
	// the connection. The parts are copied (or sent inline) before Send
	// returns.
	Send(a, b, c []byte) error
	// Write is an RDMA WRITE of local.Bytes()[off:off+n] to the peer's
	// (raddr, rkey).
	Write(local Region, off, n int, raddr uint64, rkey uint32) error
	// WriteImm is an RDMA WRITE_WITH_IMM: like Write, and the peer then sees
	// a KindWriteImm Message carrying imm and n.
	WriteImm(local Region, off, n int, raddr uint64, rkey uint32, imm uint32) error
	// Read is an RDMA READ of n bytes at the peer's (raddr, rkey) into
	// local.Bytes()[off:off+n].
	Read(local Region, off, n int, raddr uint64, rkey uint32) error
	// Register makes a region usable on this connection (same protection
	// domain as the connection).
	Register(size int, access Access) (Region, error)
	// Grant opens a window on r[off:off+n] for this connection's peer alone
	// and returns the key the peer must present. A one-sided access outside
	// every live window of the connection is a remote access error that
	// closes the connection. Revoke closes the window; an access in flight
	// at Revoke either completes before it or fails.
	Grant(r Region, off, n int, access Access) (rkey uint32, err error)
	Revoke(rkey uint32) error
	// LocalAddr and RemoteAddr are for logs.
	LocalAddr() string
	RemoteAddr() string
	// Info describes the link for results files.
	Info() Info
	// Close tears the connection down; operations in flight fail with
	// ErrClosed. Idempotent.
	Close() error
}

// Listener accepts connections for a server. New connections are announced
// through the Accept callback given to Network.Listen.
type Listener interface {
	// Addr is the address actually bound (useful with port 0).
	Addr() string
	// Register makes a region usable by every connection this listener
	// accepts (one protection domain per device).
	Register(size int, access Access) (Region, error)
	// Info describes what the listener serves on: the transport, the
	// device and the polling mode its connections use.
	Info() Info
	// Close stops accepting and closes every accepted connection. Idempotent.
	Close() error
}

// Bounded is implemented by a Listener that holds at most MaxConns
// connections at once (verbs: its connections share one send completion
// queue). Past that it refuses a new connection before the AcceptFunc sees
// it, so a server that wants newcomers let in keeps room below it.
type Bounded interface {
	MaxConns() int
}

// SharedReceives is implemented by a Listener whose connections share one
// receive queue (verbs' SRQ) of SharedRecvs buffers, kept posted, where
// each connection of another listener has its own Config.RecvDepth. A
// peer that sends more than it was given room for then takes another's:
// the server divides them by credit.
type SharedReceives interface {
	// SharedRecvs is the receives kept posted now.
	SharedRecvs() int
	// MaxSharedRecvs is the most GrowRecvs can take them to
	// (Config.MaxRecvDepth, within what the device allows).
	MaxSharedRecvs() int
	// GrowRecvs registers and posts more receives, a RecvDepth at a
	// time, and returns how many are posted then.
	GrowRecvs() (int, error)
}

// AcceptFunc is called once for each new connection, before any Deliver for
// it, and returns the Handler for that connection.
type AcceptFunc func(c Conn) Handler

// Network is a transport implementation ("tcp", "verbs").
type Network interface {
	Name() string
	// LocalAddr is an address of this machine that its own clients reach
	// a listener on over this transport; it fails with ErrNoDevice when
	// the transport has no usable device.
	LocalAddr() (netip.Addr, error)
	Listen(addr string, cfg Config, accept AcceptFunc) (Listener, error)
	Dial(ctx context.Context, addr string, cfg Config, h Handler) (Conn, error)
}

// Footprinter is a Network that can say what a configuration registers
// with its device, without opening anything: the receive buffers and the
// send ring of a connection (or a listener's shared receives).
type Footprinter interface {
	RegisteredBytes(cfg Config) (recv, ring int64, err error)
}

// Config sizes a connection's queues and buffers.
type Config struct {
	// MaxMessage is the size of each receive buffer: the largest two-sided
	// message this side accepts.
	MaxMessage int
	// MaxSend is the largest two-sided message this side sends, where it
	// is above MaxMessage: a client's requests carry keys as long as the
	// server takes, while its receives need hold only replies. Zero (or
	// less than MaxMessage) means MaxMessage.
	MaxSend int
	// RecvDepth is how many receive buffers are posted (per connection on a
	// client, in the shared receive queue on a server, or per connection
	// there too: Receives).
	RecvDepth int
	// MaxRecvDepth is the most a listener's shared receive queue grows to
	// (SharedReceives.GrowRecvs); below RecvDepth it is RecvDepth, and
	// the queue keeps its size.
	MaxRecvDepth int
	// Receives chooses, for a listener, one receive queue shared by its
	// connections or one per connection (verbs; tcp's are always per
	// connection).
	Receives Receives
	// SendDepth bounds two-sided and one-sided operations in flight.
	SendDepth int
	// Poll chooses busy polling or event-driven waiting.
	Poll Poll
	// BusyIdle, in busy mode, is how long a transport's own poller (a
	// listener's receive poller) spins with nothing arriving before it
	// sleeps on the completion channel; the next completion wakes it and
	// it spins again. A server then gives its core back while a client
	// moves a large value one-sided, which on a machine with few cores
	// slows the transfer. Zero spins without end. Callers that poll for
	// their own completions are not affected.
	BusyIdle time.Duration
	// Device names the RDMA device to use; empty means the one that owns the
	// address (verbs only).
	Device string
	// OpTimeout bounds a single one-sided operation; 0 means no bound.
	OpTimeout time.Duration
	// StallTimeout is how long a listener's connection may leave what is
	// sent to it untaken (on verbs its receive queue empty, on tcp its
	// socket unread) before it is dropped, which frees what it holds; 0
	// means DefaultStallTimeout. Dialed connections ignore it.
	StallTimeout time.Duration
	// Blocking, on tcp, gives a dialed connection a blocking socket that
	// the runtime's poller does not watch: a wait for the peer is a read
	// in the kernel on the waiting goroutine's own thread, which the
	// reply wakes and no other (rawsock.BlockConn). It saves a request
	// the poller's system calls and wake-ups while the process has fewer
	// connections than Ps; past that, the runtime hands the Ps of waiting
	// threads to others and back.
	// Without raw system calls (NetConn, or off Linux) there are no
	// blocking sockets and it is ignored. Other transports ignore it.
	Blocking bool
	// NetConn, on tcp, reads and writes the connection's socket through
	// the standard net.Conn (its Read and Write, net.Buffers for writev,
	// and a read-ahead buffer where the transport peeks) instead of with
	// raw system calls under the poller (rdmakv/rawsock). Off Linux every
	// connection takes that path; on Linux the option keeps it tested
	// beside the raw one. On a listener it holds for every connection
	// accepted. Other transports ignore it.
	NetConn bool
	// TOS is the IP type-of-service byte of the connection's traffic (DSCP
	// in its top six bits, ECN in the low two): on verbs the RoCE traffic
	// class (rdma_cm's RDMA_OPTION_ID_TOS), on tcp the socket's IP_TOS or
	// IPV6_TCLASS. Zero leaves the default, class 0. On RoCE a connection
	// runs in the class its client asked for.
	TOS int
}

// Link is the RDMA device and port under a connection (verbs; empty on
// tcp). kvbench's results.json records it as it is.
type Link struct {
	Device    string `json:"device,omitempty"`
	Firmware  string `json:"firmware,omitempty"`
	Port      int    `json:"port,omitempty"`
	MTU       int    `json:"mtu,omitempty"`
	LinkLayer string `json:"link_layer,omitempty"`
	GID       string `json:"gid,omitempty"`
	// MaxInline is the largest send the transport posts inline (verbs).
	// Eager requests up to it skip the NIC's DMA read of the payload,
	// which shows in small-value latency.
	MaxInline int `json:"max_inline,omitempty"`
}

// Info describes the link under a connection.
type Info struct {
	Transport string `json:"transport"`
	Link
	// Poll is how this side waits for completions: busy only where the
	// transport busy-polls (verbs), whatever was asked elsewhere.
	Poll Poll `json:"poll"`
	// Receives is where a verbs listener posts its receives: shared or
	// per-connection (auto settled); empty elsewhere.
	Receives Receives `json:"receives,omitempty"`
}

var (
	// ErrClosed is returned for operations on a closed connection.
	ErrClosed = errors.New("transport: connection closed")
	// ErrRemoteAccess is a one-sided access the target refused (bad key,
	// out of bounds, wrong access rights). The connection is closed.
	ErrRemoteAccess = errors.New("transport: remote access error")
	// ErrTooLarge is a two-sided message larger than the receive buffers.
	ErrTooLarge = errors.New("transport: message larger than receive buffer")
	// ErrNoDevice means no RDMA device is usable.
	ErrNoDevice = errors.New("transport: no RDMA device")
	// ErrTimeout is a one-sided operation that did not complete within
	// Config.OpTimeout, or an Await past its deadline.
	ErrTimeout = errors.New("transport: operation timed out")
	// ErrWoken is an Await that Wake ended.
	ErrWoken = errors.New("transport: await woken")
	// ErrFatal is what closed a connection whose device said it broke:
	// a fatal queue pair event, its port going down, or the device
	// failing. The connection's error wraps it with ErrClosed.
	ErrFatal = errors.New("transport: fatal device event")
)

// Poller is an optional interface of a Conn: in busy-poll mode a caller
// waiting for a completion may drive the connection's completion queues
// itself instead of being woken by the transport's poller goroutine, which
// saves a goroutine handoff per operation. Handler calls it makes stay
// serialised with the transport's own (one poller at a time, in arrival
// order), so Deliver may run on the caller's goroutine.
type Poller interface {
	// CallerPolls reports whether PollOnce does anything (busy mode).
	CallerPolls() bool
	// PollOnce polls the receive completion queue for a short burst and
	// dispatches what it found, Deliver included, on the calling
	// goroutine. It returns false when it found nothing or another
	// goroutine was already polling. It yields the processor itself when
	// that helps (another goroutine holds the queue, and now and then
	// while nothing arrives), so a caller waiting for a reply calls it in
	// a loop and does not yield on its own.
	PollOnce() bool
}

// CallerReader is an optional interface of a Conn (tcp) whose messages the
// goroutine waiting for them may read from the stream itself. Handing a
// reply from the transport's reader goroutine to the waiter costs a
// wake-up of another goroutine, and often of another thread, per message;
// with one request in flight that is most of a loopback round trip.
type CallerReader interface {
	// HandOverReads, called from Handler.Deliver, makes the transport's
	// reader goroutine stop reading once that Deliver returns: from then
	// on messages are read inside Await, and by the reader goroutine
	// only between an Await that ends while idle reports false (messages
	// may come that no one awaits: replies to requests given up) and the
	// next Await. Only an owner that has a goroutine in Await whenever
	// it expects a message and idle is true (a client with one request
	// in flight at a time) may hand reads over. It cannot be undone.
	HandOverReads(idle func() bool)
	// Await reads and dispatches messages on the calling goroutine,
	// Deliver included, until done reports true (nil), deadline passes
	// (ErrTimeout; zero means none), Wake is called (ErrWoken) or the
	// connection fails (an error that is ErrClosed). done is asked after
	// every message. One goroutine awaits at a time; another waits for
	// it. An Await that returns without done leaves reading to the
	// transport's reader goroutine, as does one that ends while idle
	// reports false; the next Await takes reading back, at the cost of a
	// wake-up. One-sided operations on a connection whose reads were
	// handed over wait for their completion in Await.
	Await(done func() bool, deadline time.Time) error
	// Wake makes the Await in progress return ErrWoken, from another
	// goroutine (a context ended), once the message it is reading, if
	// any, is in. A Wake with no Await in progress may end the next one
	// early.
	Wake()
}

// PeerInvalidator is an optional interface of a Conn whose windows the
// peer can close itself with the message that releases them (verbs
// SEND_WITH_INV). A grant then costs the granting side no invalidation of
// its own, and the peer one post for its transfer and its release.
type PeerInvalidator interface {
	// PeerCanInvalidate reports whether rkey, returned by Grant on this
	// connection, names a window the peer may close with
	// ReadInvalidate. Region-wide keys (no window support) never are.
	PeerCanInvalidate(rkey uint32) bool
	// ReadInvalidate is Read followed, once the READ has completed, by a
	// Send of (a, b, d) that also closes the peer's window rkey. The
	// peer, when it Revokes rkey after that message, finds the window
	// already closed and only recycles it.
	ReadInvalidate(local Region, off, n int, raddr uint64, rkey uint32, a, b, d []byte) error
	// WriteInvalidate is Write followed by a Send of (a, b, d) that also
	// closes the peer's window rkey, posted together; the message lands
	// after the data. It returns once the WRITE has completed.
	//
	// A window must be closed once: the peer that hands one out for
	// closing by message must not Revoke it before the message arrives
	// (on verbs the second invalidation fails the connection).
	WriteInvalidate(local Region, off, n int, raddr uint64, rkey uint32, a, b, d []byte) error
}

// WriteSender is an optional interface of a Conn that can post a Write
// and a Send together, for devices that carry no immediate data (iWARP):
// there a rendezvous set's value goes as a Write and its commit as a
// message that lands after it, where elsewhere one WriteImm does both.
type WriteSender interface {
	// NoWriteImm reports whether WriteImm is unavailable on the connection.
	NoWriteImm() bool
	// WriteSend is Write followed by a Send of (a, b, d), posted
	// together; the message lands after the data. It returns once the
	// WRITE has completed.
	WriteSend(local Region, off, n int, raddr uint64, rkey uint32, a, b, d []byte) error
}

// QueuedWindows is an optional interface of a Conn whose window binds and
// invalidations queue behind its sends on one send queue (verbs), where
// they complete only once the peer has taken every message posted before
// them. Grant and Revoke wait for that completion, so a Handler whose
// goroutine serves other connections too (a verbs server's receive
// poller) would wait on a peer that stopped taking its messages.
type QueuedWindows interface {
	// GrantQueued opens a window like Grant but returns once the bind is
	// posted: the window is open for every access the peer makes after
	// it receives a message this connection sends after GrantQueued
	// returns, since the send queue carries out the bind first. With
	// Config.SendDepth binds still queued it fails rather than wait.
	GrantQueued(r Region, off, n int, access Access) (rkey uint32, err error)
	// RevokeWaits reports whether Revoke(rkey) would wait on the send
	// queue: false when the peer has already closed the window (see
	// PeerInvalidator), when rkey is region-wide, or when the connection
	// is closed.
	RevokeWaits(rkey uint32) bool
}

// Spoken is implemented by a Conn whose transport can tell that a whole
// message from the peer has arrived before its Handler is given it: a
// server sheds, of the connections waiting for a HELLO, only those whose
// peer has said nothing.
type Spoken interface {
	// Spoken reports whether a whole message from the peer has arrived
	// that Deliver has not returned from: queued, being read, or being
	// delivered. It tells of a connection's first SpokenMessages messages
	// (a handshake's), until ReadAhead; false after them.
	Spoken() bool
	// ReadAhead lets the transport read ahead of the messages it
	// delivers, as it does for speed, before SpokenMessages have come.
	ReadAhead()
}

// SpokenMessages is how many of a connection's first messages Spoken
// tells of: a HELLO and, on a server with a secret, the HELLO that
// answers its challenge.
const SpokenMessages = 2

// Resetter is implemented by a Conn that can close with a reset: the peer
// learns at once, and nothing of the connection lingers (TCP's TIME_WAIT)
// to turn away a later one from the same port.
type Resetter interface {
	Reset() error
}
