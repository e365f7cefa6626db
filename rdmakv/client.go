package rdmakv

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kvbench/kvbench/rdmakv/internal/traceclock"
	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// Client is a connection to an rdmakv server. It is safe for concurrent use:
// up to the depth requests are in flight at once, matched to replies by
// request id.
type Client struct {
	opts options
	log  *slog.Logger
	// conn is the transport connection, which requests reach through
	// clientConn's error mapping.
	conn clientConn
	// poller is set when waiting callers drive the transport's
	// completions themselves (busy mode on a transport.Poller).
	poller transport.Poller
	// reader is set when the caller waiting for a reply reads it from
	// the transport itself (transport.CallerReader): with one request in
	// flight at most (depth 1), the reply then reaches the caller with no
	// wake-up of the transport's reader goroutine in between, which on
	// TCP is most of a loopback round trip.
	reader transport.CallerReader
	// abandoned counts requests given up whose reply has not come; while
	// there are any, the transport's reader goroutine reads between
	// requests (see transport.CallerReader).
	abandoned atomic.Int32
	// lateWake, of capacity 1, wakes a request waiting for late replies
	// (awaitLate), which passes the wake-up on while there is room.
	lateWake chan struct{}
	// flags asks for windows the client closes itself (with conn.inval);
	// tflag asks the server to time requests (WithTrace).
	flags  wire.Flag
	tflag  wire.Flag
	limits Limits
	// adapt, with WithAdaptiveThreshold, chooses each request's protocol;
	// adaptLast is the class, protocol and end of the request this
	// client completed last, which the next one's latency is charged to
	// (adaptive_after.go).
	adapt     *adaptivePolicy
	adaptLast atomic.Uint64

	// slots are made as concurrency first needs them, up to the depth, so
	// a client that issues one request at a time holds one.
	slots []atomic.Pointer[cslot]
	made  atomic.Int32
	free  chan *cslot
	// hot holds one free slot outside free: a caller that issues one
	// request at a time takes and returns it with one atomic operation
	// each instead of a channel's lock. waiting counts callers that found
	// neither and block on free; see releaseSlot.
	hot     atomic.Pointer[cslot]
	waiting atomic.Int32

	staging *staging
	credit  clientCredit

	helloCh chan *transport.Message
	ready   atomic.Bool

	done      chan struct{} // closed when the connection is gone
	doneOnce  sync.Once
	doneErr   error
	closeOnce sync.Once
	closeErr  error

	valMu   sync.Mutex
	recs    []*valueRec // released records, reused by later Gets
	handles []Value     // the unused rest of the current handle chunk
	// heldRecv counts eager Values that view their receive buffer, at
	// most recvSpare (see eagerValue).
	heldRecv int
}

// recvSpare is how many receive buffers a client has beyond its depth:
// what held eager Values may keep out of the receive queue without
// leaving a request in flight with nowhere for its reply to land.
const recvSpare = 8

// lateSpare is how many replies to requests given up may be on their way
// at once: the client has as many receive buffers again for them, and a
// new request waits (awaitLate) while that many are still to come, so
// that a server answering late never finds the client's receive queue
// empty (on verbs an RNR NAK), however many requests time out.
const lateSpare = 4

// helloAttempts is how many connections Dial makes, at most, to get one
// whose HELLO the server answers. A server flooded with connections that
// say nothing sheds, past its handshake budget, those that have not yet
// spoken; a client whose HELLO was still on its way may be among them,
// and its next connection, newest of all, is the last to be shed.
const helloAttempts = 3

// Dial connects to addr and performs the handshake (kv_open). When the
// server resets or closes a connection before answering its HELLO, Dial
// tries again on a new one, up to helloAttempts connections in all
// while ctx lasts, and then fails with ErrClosed saying so.
func Dial(ctx context.Context, addr string, opts ...Option) (*Client, error) {
	o := newOptions(opts)
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("rdmakv: dial %s: %w", addr, err)
	}
	if o.trace != nil {
		if err := traceclock.Init(); err != nil {
			return nil, fmt.Errorf("rdmakv: dial %s: %w", addr, err)
		}
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}
	o.resolveAdaptive()
	for attempt := 1; ; attempt++ {
		c, err := dial(ctx, addr, o)
		if o.lowerAdaptiveMax(err) {
			continue
		}
		if err == nil || attempt == helloAttempts || !errors.Is(err, errHelloRefused) || ctx.Err() != nil {
			return c, err
		}
		o.logger.Debug("rdmakv: dialing again", "addr", addr, "attempt", attempt+1, "cause", err)
	}
}

// dial makes one connection and its handshake.
func dial(ctx context.Context, addr string, o options) (*Client, error) {
	c := &Client{
		opts:     o,
		log:      o.logger,
		helloCh:  make(chan *transport.Message, 1),
		done:     make(chan struct{}),
		lateWake: make(chan struct{}, 1),
	}
	cfg := o.transportConfig()
	recv := cfg.MaxMessage
	err := withNetwork(o.transport, c.log, func(n transport.Network) (Info, error) {
		conn, err := n.Dial(ctx, addr, cfg, handler{c})
		if err != nil {
			return Info{}, err
		}
		c.conn = clientConn{c: c, raw: conn}
		return conn.Info(), nil
	})
	if errors.Is(err, syscall.ECONNRESET) { // accepted, then shed before the connect returned
		err = helloRefused(err)
	}
	if err != nil {
		return nil, fmt.Errorf("rdmakv: dial %s: %w", addr, err)
	}
	if err := c.handshake(ctx, recv); err != nil {
		c.conn.raw.Close()
		return nil, fmt.Errorf("rdmakv: dial %s: %w", addr, err)
	}
	if p, ok := c.conn.raw.(transport.Poller); ok && p.CallerPolls() {
		c.poller = p
	}
	if r, ok := c.conn.raw.(transport.CallerReader); ok && o.depth == 1 {
		c.reader = r // Deliver handed reads over with the HELLO_REPLY
	}
	depth := min(o.depth, max(c.limits.MaxInflight, 1))
	c.slots = make([]atomic.Pointer[cslot], depth)
	c.free = make(chan *cslot, depth)
	c.staging = newStaging(&c.conn, o.staging, o.stagingIdle)
	if c.conn.inval, _ = c.conn.raw.(transport.PeerInvalidator); c.conn.inval != nil {
		c.flags = wire.FlagPeerInvalidate
	}
	if ws, ok := c.conn.raw.(transport.WriteSender); ok && ws.NoWriteImm() {
		c.conn.noImm = ws
	}
	if o.trace != nil {
		c.tflag = wire.FlagTrace
	}
	if c.adapt, err = o.adaptivePolicy(o.threshold); err != nil {
		c.Close()
		return nil, fmt.Errorf("rdmakv: dial %s: %w", addr, err)
	}
	c.ready.Store(true)
	return c, nil
}

// errHelloRefused marks the error of a connection the server closed
// before answering HELLO, which Dial tries again.
var errHelloRefused = errors.New("the server closed the connection before answering HELLO")

// helloRefused is the error of a connection the server closed before
// answering HELLO.
func helloRefused(cause error) error {
	return fmt.Errorf("%w: %w (it sheds connections that have not spoken when flooded, and refuses ones it cannot take: its log says why): %v",
		ErrClosed, errHelloRefused, cause)
}

func (c *Client) handshake(ctx context.Context, recv int) error {
	var hb [wire.HelloBodySize + wire.ProofSize]byte
	(&wire.HelloBody{RecvSize: uint32(recv), Threshold: uint32(c.opts.threshold), Depth: uint32(c.opts.depth)}).Encode(hb[:])
	f, m, err := c.hello(ctx, hb[:wire.HelloBodySize])
	if err != nil {
		return err
	}
	defer func() {
		if m != nil {
			m.Release()
		}
	}()
	if f.Status == wire.AuthRequired {
		if c.opts.auth == nil {
			return fmt.Errorf("%w: the server requires a shared secret and this client has none (WithAuth, --auth-file)", ErrAuth)
		}
		p := wire.Proof(c.opts.auth, f.Value, hb[:wire.HelloBodySize])
		copy(hb[wire.HelloBodySize:], p[:])
		m.Release()
		if f, m, err = c.hello(ctx, hb[:]); err != nil { // m is nil on error
			return err
		}
	}
	switch f.Status {
	case wire.OK:
	case wire.AuthFailed:
		return fmt.Errorf("%w: the server refused this client's secret", ErrAuth)
	case wire.ConnLimit:
		return fmt.Errorf("%w: the server refused the connection: it serves its most connections (MaxConns) already", ErrClosed)
	case wire.Threshold:
		return refusedThreshold(fmt.Errorf("%w: %s, %s", ErrThreshold, c.opts.thresholdName(), serverMaxEager(f)), f)
	default:
		return statusErr("HELLO", f.Status)
	}
	l, err := wire.DecodeLimits(f.Value)
	if err != nil {
		return fmt.Errorf("%w: HELLO reply: %v", ErrProtocol, err)
	}
	c.limits = Limits{
		MaxEager: int(l.MaxEager), MaxKey: int(l.MaxKey), MaxValue: int64(l.MaxValue), PoolSize: int64(l.PoolSize),
		Lease: time.Duration(l.LeaseMillis) * time.Millisecond, MaxInflight: int(l.MaxInflight),
	}
	if c.opts.threshold > c.limits.MaxEager {
		return fmt.Errorf("%w: %s, server accepts at most %d", ErrThreshold, c.opts.thresholdName(), c.limits.MaxEager)
	}
	c.credit.start(f.Credit)
	return nil
}

// hello sends one HELLO with value and waits for its reply, which the
// caller releases.
func (c *Client) hello(ctx context.Context, value []byte) (wire.Frame, *transport.Message, error) {
	var h [wire.MaxHeaderSize]byte
	n := (&wire.Header{Type: wire.Hello, ValueLen: uint32(len(value))}).Encode(h[:])
	// Not through conn, whose mapping would lose the transport's cause:
	// a connection closed during the handshake is the server's refusal.
	if err := c.conn.raw.Send(h[:n], nil, value); err != nil {
		if errors.Is(err, transport.ErrClosed) { // the server was quicker
			return wire.Frame{}, nil, helloRefused(err)
		}
		return wire.Frame{}, nil, c.connError(err)
	}
	t := time.NewTimer(c.opts.timeout)
	defer t.Stop()
	var m *transport.Message
	select {
	case m = <-c.helloCh:
	case <-t.C:
		return wire.Frame{}, nil, fmt.Errorf("%w: no HELLO reply within %v", ErrTimeout, c.opts.timeout)
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return wire.Frame{}, nil, fmt.Errorf("%w: no HELLO reply by the deadline (%w)", ErrTimeout, ctx.Err())
		}
		return wire.Frame{}, nil, fmt.Errorf("no HELLO reply: %w", ctx.Err())
	case <-c.done:
		select { // a reply delivered before the close comes first
		case m = <-c.helloCh:
		default:
			return wire.Frame{}, nil, helloRefused(c.doneErr)
		}
	}
	f, err := wire.Decode(m.Data)
	if err != nil {
		m.Release()
		return wire.Frame{}, nil, fmt.Errorf("%w: HELLO reply: %v", ErrProtocol, err)
	}
	return f, m, nil
}

// serverMaxEager says the server's limit from its refusal, which carries
// the limits unless the server is malformed.
func serverMaxEager(f wire.Frame) string {
	if l, err := wire.DecodeLimits(f.Value); err == nil {
		return fmt.Sprintf("server accepts at most %d", l.MaxEager)
	}
	return "server accepts less (its limit was not in the refusal)"
}

// Limits are the server's limits from the handshake.
func (c *Client) Limits() Limits { return c.limits }

// Info describes the link.
func (c *Client) Info() Info { return c.conn.raw.Info() }

// ProtocolFor says which protocol a Set of these sizes uses: under a
// profile, by its set threshold; with WithAdaptiveThreshold, its class's
// current choice, which a request now and then leaves to explore.
func (c *Client) ProtocolFor(keyLen, valueLen int) Protocol {
	if c.adapt != nil {
		return c.adapt.current(keyLen + valueLen)
	}
	return ProtocolAt(c.opts.setThreshold, keyLen, valueLen)
}

// Close closes the connection (kv_close). Requests in flight fail with
// ErrClosed. The bytes of Values not yet released become invalid (the
// connection's registered memory goes with it), though releasing them
// stays harmless. Idempotent.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.markDone(nil)
		if c.staging != nil {
			c.staging.seal()
		}
		c.closeErr = c.conn.raw.Close()
		if c.staging != nil {
			c.staging.close()
		}
	})
	return c.closeErr
}

func (c *Client) markDone(err error) {
	c.doneOnce.Do(func() {
		c.doneErr = err
		close(c.done)
	})
}

// connError maps a transport failure to ErrClosed, keeping the cause.
func (c *Client) connError(err error) error {
	select {
	case <-c.done:
		if c.doneErr != nil && errors.Is(c.doneErr, transport.ErrFatal) {
			return fmt.Errorf("%w: %w", ErrClosed, c.doneErr)
		}
		if c.doneErr != nil {
			return fmt.Errorf("%w: %v", ErrClosed, c.doneErr)
		}
		return ErrClosed
	default:
	}
	if errors.Is(err, transport.ErrClosed) {
		return ErrClosed
	}
	if errors.Is(err, transport.ErrTimeout) {
		return fmt.Errorf("%w: %v", ErrTimeout, err)
	}
	return fmt.Errorf("%w: %v", ErrProtocol, err)
}
