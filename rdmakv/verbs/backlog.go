//go:build linux && cgo

package verbs

import (
	"fmt"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// backlogMax bounds the bytes a server connection queues behind its full
// send ring. It holds a pipelining client's replies at the largest eager
// size (64 requests of 64 KiB) with room to spare; a peer that leaves more
// than that unread is not draining them and is dropped.
const backlogMax = 4 << 20

// backlogKeep is the largest queue buffer kept once the queue empties; a
// larger one goes back to the garbage collector, so a connection that
// backed up once does not hold its peak for good.
const backlogKeep = 64 << 10

// backlog is a server connection's queue of messages that found the send
// ring full: the receive poller hands them over and goes on, and they are
// posted in order as the ring frees up. Guarded by the connection's
// sendMu.
type backlog struct {
	buf  []byte
	lens []int
	head int // index in lens of the oldest queued message
	off  int // offset in buf of the oldest queued message
	// sent counts messages taken off the queue: progress, for the stall
	// bound.
	sent uint64
	// draining is set while a goroutine waits for ring space for it.
	draining bool
}

func (b *backlog) empty() bool { return b.head == len(b.lens) }

// bytes is what the queue holds.
func (b *backlog) bytes() int { return len(b.buf) - b.off }

// push queues one message made of three parts.
func (b *backlog) push(x, y, z []byte) {
	if b.off > 0 && b.off >= len(b.buf)/2 {
		b.compact()
	}
	b.buf = append(append(append(b.buf, x...), y...), z...)
	b.lens = append(b.lens, len(x)+len(y)+len(z))
}

// front is the oldest queued message.
func (b *backlog) front() []byte { return b.buf[b.off : b.off+b.lens[b.head]] }

// pop drops the oldest queued message.
func (b *backlog) pop() {
	b.off += b.lens[b.head]
	b.head++
	b.sent++
	if b.empty() {
		b.reset()
	}
}

// compact moves what is queued to the front of the buffers.
func (b *backlog) compact() {
	b.buf = b.buf[:copy(b.buf, b.buf[b.off:])]
	b.lens = b.lens[:copy(b.lens, b.lens[b.head:])]
	b.off, b.head = 0, 0
}

func (b *backlog) reset() {
	b.buf, b.lens = b.buf[:0], b.lens[:0]
	b.off, b.head = 0, 0
	if cap(b.buf) > backlogKeep {
		b.buf, b.lens = nil, nil
	}
}

// drainNap is how long, in busy mode, the backlog's goroutine sleeps
// between polls of the send CQ: it must not take a core from the pollers
// serving everyone else.
const drainNap = 50 * time.Microsecond

// sendQueued is send on a server connection whose ring is full or that
// already queues: the message goes after those queued, posted now if the
// ring has room, else copied to the backlog. Called with sendMu held; it
// releases it.
func (c *conn) sendQueued(a, b, d []byte, inv uint32, wr *writeInv) (int, error) {
	defer c.sendMu.Unlock()
	if inv != 0 || wr != nil {
		// Only plain replies queue, and a server posts no other kind.
		return 0, fmt.Errorf("verbs: send with invalidate behind %d queued bytes", c.backlog.bytes())
	}
	if err := c.flushBacklog(); err != nil {
		return 0, err
	}
	n := len(a) + len(b) + len(d)
	if c.backlog.empty() {
		off, seq, sig, ok := c.sring.reserve(n)
		if !ok && c.g.scq.busy && c.g.scq.tryPoll(1, false) == pollGot {
			off, seq, sig, ok = c.sring.reserve(n) // busy mode reclaims lazily
		}
		if ok {
			return c.post(off, seq, sig, n, a, b, d, 0, nil)
		}
	}
	if q := c.backlog.bytes(); q+n > backlogMax {
		err := fmt.Errorf("%w: peer is not taking its replies (%d bytes queued behind a full send ring)",
			transport.ErrTimeout, q)
		c.shutdown(err)
		return 0, err
	}
	c.backlog.push(a, b, d)
	if !c.backlog.draining {
		c.backlog.draining = true
		go c.drainBacklog()
	}
	return 0, nil
}

// flushBacklog posts queued messages, oldest first, while the ring has
// room. Called with sendMu held.
func (c *conn) flushBacklog() error {
	for !c.backlog.empty() {
		m := c.backlog.front()
		off, seq, sig, ok := c.sring.reserve(len(m))
		if !ok {
			return nil
		}
		if _, err := c.post(off, seq, sig, len(m), m, nil, nil, 0, nil); err != nil {
			return err
		}
		c.backlog.pop()
	}
	return nil
}

// drainBacklog posts a server connection's queued messages as its ring
// frees up. It runs on a goroutine of its own while there is a backlog, so
// that the receive poller never waits for one peer; a peer that takes no
// message for sendStall is dropped.
func (c *conn) drainBacklog() {
	stall := time.NewTimer(c.sendStall)
	defer stall.Stop()
	for {
		c.sendMu.Lock()
		sent := c.backlog.sent
		err := c.flushBacklog()
		done := err != nil || c.backlog.empty()
		if done {
			c.backlog.draining = false
		}
		progressed := c.backlog.sent != sent
		c.sendMu.Unlock()
		if done {
			return
		}
		if progressed {
			stall.Reset(c.sendStall)
		}
		if !c.awaitRing(stall.C) {
			c.sendMu.Lock()
			c.backlog.draining = false
			c.sendMu.Unlock()
			return
		}
	}
}

// awaitRing waits until the ring may have room again. It reports false
// once the connection is closed, or dropped because expired fired.
func (c *conn) awaitRing(expired <-chan time.Time) bool {
	if c.g.scq.busy {
		if c.g.scq.tryPoll(1, false) == pollGot {
			return true
		}
		time.Sleep(drainNap)
		select {
		case <-c.closedCh:
			return false
		case <-expired:
			_ = c.stalled()
			return false
		default:
			return true
		}
	}
	select {
	case <-c.ringWake:
		return true
	case <-c.closedCh:
		return false
	case <-expired:
		_ = c.stalled()
		return false
	}
}
