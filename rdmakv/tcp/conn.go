package tcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// errorGrace bounds how long a connection that refused a frame spends
// telling the peer (the ERROR frame) and draining what the peer had already
// sent, so the peer reads the ERROR rather than a reset.
const errorGrace = time.Second

// Stream buffer sizes. The read buffer is kept small so that most of a
// large payload is read straight into its destination rather than copied
// out of the buffer. Every write flushes and a payload of directMin or more
// bypasses the write buffer, so it only ever holds a few small frames.
// Both are made when first needed: an idle connection holds neither.
const (
	readBufSize  = 4 << 10
	writeBufSize = 8 << 10
)

var (
	errPeerClosed = fmt.Errorf("%w: peer closed the connection", transport.ErrClosed)
	errPeerReset  = fmt.Errorf("%w: peer reset the connection", transport.ErrClosed)
)

// conn is one emulated RC connection over a TCP stream. It runs two
// goroutines: the reader, which parses frames, places WRITE payloads,
// completes our ops and delivers receives; and the responder, which sends
// WRITE_ACKs and serves READ_REQs so that the reader never waits on the
// outgoing stream (two peers reading each other cannot deadlock on full
// socket buffers). A client with one request in flight at a time may
// take the reader's place and read its replies itself (callerreads.go).
type conn struct {
	nc     stream
	cfg    transport.Config
	pd     *pd
	ownsPD bool // a dialed connection is its own protection domain
	h      transport.Handler
	ln     *listener

	// br and the frame handling behind it belong to whoever holds rtok:
	// the reader goroutine, or after HandOverReads a caller in Await
	// (callerreads.go).
	br   *bufio.Reader
	src  io.Reader // what br and the reader read: nc, or gate while guarded
	recv *recvPool
	ops  *opTable
	rtok chan struct{}
	// resume carries rtok from an Await to the reader goroutine.
	resume     chan struct{}
	handedOver atomic.Bool
	idle       func() bool // set before handedOver
	wanted     atomic.Bool // an Await waits for the reader goroutine's rtok
	woken      atomic.Bool // Wake was called
	// The token holder's: it is in Await (or reads for no one, lend),
	// with deadline awaitBy, and the socket's read deadline is rdl.
	awaiting bool
	awaitBy  time.Time
	rdl      time.Time

	wmu sync.Mutex // guards w: one frame at a time
	w   *frameWriter

	rq responseQueue

	closing    chan struct{}
	closeOnce  sync.Once
	cause      error // why it closed; nil for a local Close
	opErr      error // what operations get once closing
	draining   bool  // an ERROR was sent: read out the peer's frames before closing
	drainBy    time.Time
	inCallback atomic.Bool
	// localClose is set by Close. Only a local Close frees a dialed
	// connection's regions: after losing the peer they stay mapped, so
	// views into them (a held value) stay readable until the owner closes,
	// as verbs memory outlives a QP in the error state.
	localClose atomic.Bool
	readerDone chan struct{}
	rspDone    chan struct{}

	local, remote string

	// Until ReadAhead, an accepted connection's reader takes whole
	// frames one at a time (spoken.go), peeking at inq; guarded, gate
	// and peek are the reader's.
	inq       peeker
	guarded   bool
	guardLeft int // frames still to take whole
	gate      gate
	peek      [headerSize]byte
	taking    atomic.Bool
	readAhead atomic.Bool
	spokeAll  atomic.Bool // the guard has ended: Spoken tells no more

	// Owned by the listener's watchdog (writeStuck).
	stallSeen  uint64
	stallLooks int
}

func newConn(nc stream, cfg transport.Config, p *pd, ownsPD bool) (*conn, error) {
	if err := setTOS(nc, cfg.TOS); err != nil {
		return nil, err
	}
	recv, err := newRecvPool(cfg.RecvDepth, cfg.MaxMessage)
	if err != nil {
		return nil, err
	}
	c := &conn{
		nc:         nc,
		src:        nc,
		cfg:        cfg,
		pd:         p,
		ownsPD:     ownsPD,
		w:          newFrameWriter(nc, writeBufSize),
		recv:       recv,
		rtok:       make(chan struct{}, 1), // empty: the reader goroutine holds it
		resume:     make(chan struct{}, 1),
		closing:    make(chan struct{}),
		readerDone: make(chan struct{}),
		rspDone:    make(chan struct{}),
		local:      nc.LocalAddr().String(),
		remote:     nc.RemoteAddr().String(),
	}
	c.ops = newOpTable(cfg.SendDepth, c.opTimedOut)
	c.rq.init()
	return c, nil
}

// start runs the connection once its handler is known.
func (c *conn) start(h transport.Handler) {
	c.h = h
	go c.respond()
	go c.readLoop()
}

// discard tears down a connection that never got a Handler, with a reset.
func (c *conn) discard() {
	c.linger0()
	c.closeWith(nil, nil)
	c.start(nil)
	<-c.readerDone
}

func (c *conn) isClosing() bool {
	select {
	case <-c.closing:
		return true
	default:
		return false
	}
}

// closeWith begins the teardown once; the first cause wins. With an ERROR
// frame to send, the write side is closed after it and the reader drains
// the peer's frames until the peer hangs up (or errorGrace passes), so the
// peer is not reset before it has read the ERROR.
func (c *conn) closeWith(cause error, ef *header) {
	c.closeOnce.Do(func() {
		c.cause = cause
		switch {
		case cause == nil:
			c.opErr = transport.ErrClosed
		case errors.Is(cause, transport.ErrClosed):
			c.opErr = cause
		default:
			c.opErr = fmt.Errorf("%w: %v", transport.ErrClosed, cause)
		}
		c.draining = ef != nil
		close(c.closing)
		if ef != nil {
			deadline := time.Now().Add(errorGrace)
			c.drainBy = deadline
			_ = c.nc.SetWriteDeadline(deadline) // unsticks a writer blocked on a full socket
			c.wmu.Lock()
			c.w.header(ef)
			_ = c.w.flush()
			c.wmu.Unlock()
			_ = c.nc.CloseWrite()
			_ = c.nc.SetReadDeadline(deadline)
		} else {
			_ = c.nc.Close()
		}
		c.ops.failAll(c.opErr)
	})
}

// Close tears the connection down and, unless called from one of this
// connection's own Handler callbacks, waits until Handler.Closed has run.
func (c *conn) Close() error {
	c.localClose.Store(true)
	c.closeWith(nil, nil)
	if !c.inCallback.Load() {
		<-c.readerDone
		c.freePD()
	}
	return nil
}

// freePD frees a dialed connection's regions once it is closed locally. It
// runs from Close and again at the end of finish (a Close from a callback
// cannot wait for the reader); pd.close is idempotent.
func (c *conn) freePD() {
	if c.ownsPD && c.localClose.Load() {
		c.pd.close()
	}
}

// finish is the reader's last act: free in reverse order of acquisition,
// then report.
func (c *conn) finish() {
	_ = c.nc.Close()
	<-c.rspDone
	c.ops.failAll(c.opErr)
	c.pd.dropWindows(c)
	if c.ln != nil {
		c.ln.forget(c)
	}
	c.recv.unref()
	if c.h != nil {
		c.inCallback.Store(true)
		c.h.Closed(c, c.cause)
		c.inCallback.Store(false)
	}
	c.freePD()
	close(c.readerDone)
}

// Send writes one SEND frame; the parts are in the socket (or its buffer)
// when it returns.
func (c *conn) Send(a, b, d []byte) error {
	n := len(a) + len(b) + len(d)
	if n > maxFrame {
		return fmt.Errorf("tcp: send of %d bytes exceeds %d", n, maxFrame)
	}
	if c.isClosing() {
		return c.opErr
	}
	h := header{op: opSend, len: uint32(n)}
	c.wmu.Lock()
	c.w.header(&h)
	c.w.payload(a)
	c.w.payload(b)
	c.w.payload(d)
	err := c.w.flush()
	c.wmu.Unlock()
	if err != nil {
		c.closeWith(fmt.Errorf("tcp: send: %w", err), nil)
		return c.opErr
	}
	return nil
}

// Register makes a region in the connection's protection domain: the
// listener's for an accepted connection, the connection's own when dialed.
func (c *conn) Register(size int, access transport.Access) (transport.Region, error) {
	if c.isClosing() {
		return nil, c.opErr
	}
	r, err := c.pd.register(size, access)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (c *conn) LocalAddr() string  { return c.local }
func (c *conn) RemoteAddr() string { return c.remote }

// Info: a TCP connection waits on its socket, whatever the poll mode asked.
func (c *conn) Info() transport.Info {
	return transport.Info{Transport: Name, Poll: transport.PollEvent}
}
