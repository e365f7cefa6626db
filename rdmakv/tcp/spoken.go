package tcp

import (
	"errors"
	"io"

	"github.com/kvbench/kvbench/rdmakv/rawsock"
	"github.com/kvbench/kvbench/rdmakv/transport"
)

// An accepted connection is guarded for its first transport.SpokenMessages
// frames, or until its handler calls ReadAhead: the reader takes a frame
// only once the whole of it is in the socket, and then exactly that
// frame, never bytes of the next. So a whole frame
// is always either queued in the socket, where a peek sees it, or being
// taken and delivered, which taking says: Spoken can tell a peer that has
// sent its HELLO from one that has not, however long the reader waits to
// run. A frame that cannot be a handshake's (malformed, or larger than
// guardMax), or a peer that hangs up mid-frame, ends the guard, and the
// reader meets it as usual.
//
// On the net.Conn path (transport.Config.NetConn) there is no peek at the
// socket: the reader reads ahead into a buffer that stands for its queue
// (readAhead), and a frame is seen once the reader has read it there: not
// before the reader first runs, nor while the runtime has yet to run it
// once the frame is in the socket.

// guardMax is the largest frame a guarded connection waits to hold whole.
// Frames that wait unread hold the socket's receive buffer, which never
// runs out for SpokenMessages of these; more might close the TCP window on
// a frame not yet whole, and the connection would stall.
const guardMax = readBufSize

var (
	_ transport.Spoken   = (*conn)(nil)
	_ transport.Resetter = (*conn)(nil)
)

var errPastFrame = errors.New("tcp: read past a guarded frame")

// gate passes the reader no more than the frame it is taking.
type gate struct {
	r    io.Reader
	left int
}

func (g *gate) Read(p []byte) (int, error) {
	if g.left <= 0 {
		return 0, errPastFrame
	}
	if len(p) > g.left {
		p = p[:g.left]
	}
	n, err := g.r.Read(p)
	g.left -= n
	return n, err
}

// guard starts an accepted connection guarded; inq is what it peeks at.
func (c *conn) guard(inq peeker) {
	c.inq, c.guarded, c.guardLeft = inq, true, transport.SpokenMessages
	c.gate = gate{r: c.nc}
	c.src = &c.gate
}

// unguard lets the reader read ahead; at a frame boundary, where the
// stream buffer is empty.
func (c *conn) unguard() {
	c.guarded, c.src, c.gate = false, c.nc, gate{}
	c.spokeAll.Store(true)
	if c.br != nil {
		c.br.Reset(c.nc)
	}
}

// awaitWhole waits until the socket holds the next frame whole and opens
// the gate for it, or ends the guard (see above). An error of the socket
// is left for the read that follows to meet.
func (c *conn) awaitWhole() {
	if c.readAhead.Load() {
		c.unguard()
		return
	}
	var n int
	var whole bool
	_, err := c.inq.AwaitPeek(c.peek[:], func(pk rawsock.Peeked) bool {
		var settled bool
		n, whole, settled = wholeFrame(c.peek[:], pk)
		return settled
	})
	if err != nil || !whole {
		c.unguard()
		return
	}
	c.gate.left = n
	c.taking.Store(true)
}

// took ends the taking of a guarded frame once it has been handled.
func (c *conn) took() {
	c.taking.Store(false)
	if c.guardLeft--; c.guardLeft == 0 || c.readAhead.Load() {
		c.unguard()
	}
}

// wholeFrame reads a peek at the socket: the size of the frame at its
// head, whether all of it is queued, and whether waiting longer is
// pointless (it is whole, or can never be: malformed, larger than
// guardMax, or cut short by the peer's hang-up).
func wholeFrame(hb []byte, pk rawsock.Peeked) (n int, whole, settled bool) {
	if pk.N < headerSize {
		return 0, false, pk.Hup
	}
	h, err := decodeHeader(hb)
	if err != nil {
		return 0, false, true
	}
	n = headerSize
	if h.hasPayload() {
		n += int(h.len)
	}
	if n > guardMax {
		return n, false, true
	}
	whole = pk.Queued >= n
	return n, whole, whole || pk.Hup
}

// Spoken reports whether a whole frame from the peer has arrived that the
// handler has not finished with (transport.Spoken). The second look at
// taking catches a frame the reader took during the peek: it marks the
// frame before it reads it.
func (c *conn) Spoken() bool {
	if c.inq == nil || c.spokeAll.Load() || c.readAhead.Load() {
		return false
	}
	if c.taking.Load() {
		return true
	}
	var hb [headerSize]byte
	if pk, err := c.inq.Peek(hb[:]); err == nil {
		if _, whole, _ := wholeFrame(hb[:], pk); whole {
			return true
		}
	}
	return c.taking.Load()
}

// ReadAhead ends the guard at the next frame boundary.
func (c *conn) ReadAhead() { c.readAhead.Store(true) }

// Reset closes the connection with a TCP reset (transport.Resetter).
func (c *conn) Reset() error {
	c.linger0()
	return c.Close()
}

// linger0 makes the socket's close a reset.
func (c *conn) linger0() {
	if l, ok := c.nc.(interface{ SetLinger(sec int) error }); ok {
		_ = l.SetLinger(0)
	}
}
