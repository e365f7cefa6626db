package tcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// A connection reads its stream on its reader goroutine until its handler
// calls HandOverReads; from then on the goroutine that waits for a message
// reads the stream itself in Await, and the reply it waits for reaches it
// with no wake-up of another goroutine (transport.CallerReader).
//
// rtok is the right to read: whoever holds it owns br and the frame
// handling behind it. The reader goroutine holds it until the hand-over.
// An Await takes it and, once its message came, puts it back. An Await
// that gives up, or ends while the owner is not idle, instead hands it to
// the reader goroutine (resume), which reads what comes while no one
// awaits (a late reply must still be answered at once: a GET_RELEASE
// frees the server's read window) until an Await wants the stream back
// (wanted). That Await moves the socket's read deadline to the past,
// which ends the reader's read at once, and the reader gives the token
// back at the next frame boundary.

// readSlack is how far past an Await's deadline the socket's read
// deadline may lie. Moving the socket's deadline costs a timer update in
// the runtime, so it moves only when a new deadline falls outside
// [deadline, deadline+readSlack]: once per readSlack of wall time when
// requests follow one another, and an Await times out at most readSlack
// late.
const readSlack = 10 * time.Millisecond

// errHandedOver ends the reader goroutine's reading.
var errHandedOver = errors.New("tcp: reads handed over to callers")

var errNotHandedOver = errors.New("tcp: Await on a connection whose reader goroutine still reads")

// longAgo is a read deadline that has passed, to end a read at once.
var longAgo = time.Unix(1, 0)

// HandOverReads stops the reader goroutine once the Deliver calling it
// returns; see transport.CallerReader.
func (c *conn) HandOverReads(idle func() bool) {
	c.idle = idle
	c.handedOver.Store(true)
}

// Await reads and handles frames on the calling goroutine until done
// reports true; see transport.CallerReader.
func (c *conn) Await(done func() bool, deadline time.Time) error {
	if done() {
		return nil
	}
	if !c.handedOver.Load() {
		return errNotHandedOver
	}
	if !c.takeStream() {
		return c.opErr
	}
	c.awaiting, c.awaitBy = true, deadline
	err := c.awaitFrames(done, true)
	c.awaiting = false
	if err == nil {
		c.woken.Store(false) // a Wake for this Await, which is over
	}
	if err == transport.ErrTimeout || err == transport.ErrWoken || (err == nil && !c.idle()) {
		c.resume <- struct{}{} // the token goes with it
	} else {
		c.rtok <- struct{}{}
	}
	return err
}

// takeStream takes rtok, from the reader goroutine if it reads; false
// once the connection is closing.
func (c *conn) takeStream() bool {
	select {
	case <-c.rtok:
		return true
	default:
	}
	// wanted is set before the deadline moves: the reader looks at it
	// after every failed read and after lifting the deadline again, so it
	// cannot miss it.
	c.wanted.Store(true)
	defer c.wanted.Store(false)
	_ = c.nc.SetReadDeadline(longAgo)
	select {
	case <-c.rtok:
		return true
	case <-c.closing:
		return false
	}
}

// Wake ends the Await in progress at the next frame boundary; see
// transport.CallerReader.
func (c *conn) Wake() {
	c.woken.Store(true)
	if !c.isClosing() { // the deadline then bounds the drain
		_ = c.nc.SetReadDeadline(longAgo)
	}
}

// lend is the reader goroutine once reads are handed over: it waits for
// an Await to give the stream back or for the connection to close, reads
// while no one awaits, and reports errHandedOver when an Await wants the
// stream again, nil once the connection is closing and it holds rtok.
func (c *conn) lend() error {
	c.rtok <- struct{}{}
	select {
	case <-c.resume:
	case <-c.closing:
		select { // the token comes back one way or the other
		case <-c.rtok:
		case <-c.resume:
		}
		return nil
	}
	c.awaiting, c.awaitBy = true, time.Time{}
	err := c.awaitFrames(c.isWanted, false)
	c.awaiting = false
	if err == nil {
		return errHandedOver
	}
	return nil // closing: the cause is recorded
}

func (c *conn) isWanted() bool { return c.wanted.Load() }

// awaitFrames reads and handles frames until done; see Await. Only an
// Await (wakeable) ends on Wake.
func (c *conn) awaitFrames(done func() bool, wakeable bool) error {
	c.armRead()
	for !done() {
		if c.isClosing() {
			return c.opErr
		}
		// A Wake before armRead may have had its deadline moved away.
		if wakeable && c.woken.Load() && c.woken.Swap(false) {
			return transport.ErrWoken
		}
		h, err := c.peekFrame()
		if err != nil {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				c.closeWith(err, nil) // no-op when already closing
				return c.opErr
			}
			// At a frame boundary: nothing of the stream is lost.
			if wakeable && c.woken.Swap(false) {
				return transport.ErrWoken
			}
			if c.rearm() {
				continue
			}
			if c.isClosing() {
				return c.opErr
			}
			return transport.ErrTimeout
		}
		if err := c.handle(&h); err != nil {
			c.closeWith(err, nil)
			return c.opErr
		}
	}
	return nil
}

// peekFrame reads the next frame header and consumes it. A frame that fits
// the stream buffer is consumed only once the whole of it has arrived, so
// a read deadline (the caller's, or Wake) that fails a read here leaves
// the stream at the frame boundary, to be taken up by the next Await; the
// error is then the deadline's, as it is. Any other error is already
// named, as the reader goroutine names it.
func (c *conn) peekFrame() (header, error) {
	if c.br == nil {
		c.br = bufio.NewReaderSize(c.src, readBufSize)
	}
	b, err := c.br.Peek(headerSize)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return header{}, err
		}
		return header{}, c.named(c.headerErr(len(b), err))
	}
	h, err := decodeHeader(b)
	if err != nil {
		return h, c.protocolError(err)
	}
	if n := headerSize + int(h.len); h.hasPayload() && n <= c.br.Size() {
		if b, err = c.br.Peek(n); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return header{}, err
			}
			if errors.Is(err, io.EOF) {
				return h, c.protocolError(fmt.Errorf("truncated frame: %s promised %d payload bytes", opName(h.op), h.len))
			}
			return h, c.named(c.readErr(err))
		}
	}
	_, _ = c.br.Discard(headerSize)
	return h, nil
}

// named turns the nil that readErr returns after a local close into the
// connection's error.
func (c *conn) named(err error) error {
	if err == nil {
		return c.opErr
	}
	return err
}

// armRead keeps the socket's read deadline within readSlack after the
// Await's (see readSlack). An Await without a deadline leaves it: if a
// stale one fires, rearm lifts it.
func (c *conn) armRead() {
	by := c.awaitBy
	if by.IsZero() {
		return
	}
	if c.rdl.Before(by) || c.rdl.Sub(by) > readSlack {
		c.rdl = by.Add(readSlack)
		_ = c.nc.SetReadDeadline(c.rdl)
	}
}

// rearm, after a read failed on its deadline, reports whether the Await
// goes on: its own deadline has not passed (the socket's was stale, or
// Wake set it), and the socket's is set anew. A connection closing may
// have set the deadline for its drain: it is left alone.
func (c *conn) rearm() bool {
	if c.isClosing() {
		return false
	}
	by := c.awaitBy
	if !by.IsZero() && !time.Now().Before(by) {
		return false
	}
	c.rdl = time.Time{}
	if !by.IsZero() {
		c.rdl = by.Add(readSlack)
	}
	_ = c.nc.SetReadDeadline(c.rdl)
	return true
}

// rearmMidFrame reports whether a payload read that failed with err goes
// on: a deadline moved by Wake or by an Await taking the stream back stops
// a read mid-frame, and the frame must then be finished before anyone
// looks at the stream. An Await whose own
// deadline has passed mid-frame gives up the connection with it (the
// peer stalled mid-frame), as a one-sided op that times out does.
func (c *conn) rearmMidFrame(err error) bool {
	return c.awaiting && errors.Is(err, os.ErrDeadlineExceeded) && c.rearm()
}
