package rdmakv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// cslot is one request slot: a reusable header buffer, reply channel and
// timer, so a request allocates nothing.
type cslot struct {
	idx  uint32
	gen  uint32 // owned by the goroutine holding the slot
	mu   sync.Mutex
	wait bool   // a reply with id is expected
	id   uint32 // gen<<16 | idx
	ch   chan *transport.Message
	// polled: the waiter polls the transport itself (busy mode) and finds
	// its reply in got, a swap cheaper than a channel handoff; otherwise
	// the reply comes on ch, which a blocked waiter can select on.
	polled bool
	got    atomic.Pointer[transport.Message]
	// settled is the method value drive hands the transport, made once.
	settled func() bool
	// abandoned is the client's count of replies given up (disarm).
	abandoned *atomic.Int32
	// frame is the reply handed over, decoded (and validated) by Deliver,
	// so the waiter does not decode it again.
	frame wire.Frame
	timer *time.Timer
	hdr   [wire.MaxHeaderSize]byte
	trace Trace // the request's, when the client traces
	adapt adaptStamp
}

// acquire takes a free request slot.
func (c *Client) acquire(ctx context.Context) (*cslot, error) {
	if ctx.Err() != nil {
		return nil, ctxErr(ctx) // a dead context sends nothing
	}
	if c.abandoned.Load() >= lateSpare {
		if err := c.awaitLate(ctx); err != nil {
			return nil, err
		}
	}
	if s := c.hot.Swap(nil); s != nil {
		return s, nil
	}
	select {
	case s := <-c.free:
		return s, nil
	default:
	}
	if s := c.makeSlot(); s != nil {
		return s, nil
	}
	c.waiting.Add(1)
	defer c.waiting.Add(-1)
	if s := c.hot.Swap(nil); s != nil {
		return s, nil
	}
	select {
	case s := <-c.free:
		return s, nil
	case <-c.done:
		return nil, c.connError(nil)
	case <-ctx.Done():
		return nil, ctxErr(ctx)
	}
}

// awaitLate waits, up to the client's timeout, until fewer than
// lateSpare replies to requests given up are still to come.
func (c *Client) awaitLate(ctx context.Context) error {
	room := func() bool { return c.abandoned.Load() < lateSpare }
	got := func() bool {
		if !room() {
			return false
		}
		c.signalLate() // another waiter may fit too
		return true
	}
	return c.waitServer(ctx, got, room, c.lateWake, func() error {
		return fmt.Errorf("%w: %d replies to requests given up still to come after %v", ErrTimeout, c.abandoned.Load(), c.opts.timeout)
	})
}

// signalLate wakes a request waiting for late replies, if any.
func (c *Client) signalLate() {
	select {
	case c.lateWake <- struct{}{}:
	default:
	}
}

// makeSlot makes another request slot, or returns nil at the depth.
func (c *Client) makeSlot() *cslot {
	for {
		n := c.made.Load()
		if int(n) >= len(c.slots) {
			return nil
		}
		if c.made.CompareAndSwap(n, n+1) {
			s := &cslot{idx: uint32(n), ch: make(chan *transport.Message, 1), polled: c.poller != nil || c.reader != nil}
			s.settled, s.abandoned = s.isSettled, &c.abandoned
			c.slots[n].Store(s)
			return s
		}
	}
}

// slot is the request slot a reply names, or nil.
func (c *Client) slot(idx uint32) *cslot {
	if int(idx) < len(c.slots) {
		return c.slots[idx].Load()
	}
	return nil
}

// releaseSlot returns s to hot when that is empty, else to free. A
// waiter registers in waiting before its last look at hot, and a releaser
// looks at waiting after filling hot, so one of the two sees the other:
// a slot parked in hot while someone blocks on free is moved over.
func (c *Client) releaseSlot(s *cslot) {
	if c.hot.CompareAndSwap(nil, s) {
		if c.waiting.Load() == 0 {
			return
		}
		if s = c.hot.Swap(nil); s == nil {
			return
		}
	}
	c.free <- s
}

func ctxErr(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: %v", ErrTimeout, ctx.Err())
	}
	return ctx.Err()
}

// arm gives the slot a fresh request id and expects its reply.
func (s *cslot) arm() uint32 {
	s.gen++
	if s.gen&0xffff == 0 {
		s.gen++ // id 0 is never a request, so a late cancel can use it
	}
	id := s.gen<<16 | s.idx
	s.mu.Lock()
	s.id, s.wait = id, true
	s.mu.Unlock()
	return id
}

// rearm expects a second reply to the same request (a set's SET_REPLY
// after its grant).
func (s *cslot) rearm() {
	s.mu.Lock()
	s.wait = true
	s.mu.Unlock()
}

// disarm stops expecting a reply. If the reply raced in, it is returned
// so the caller can dispose of it.
func (s *cslot) disarm() *transport.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wait {
		s.wait = false
		// Its reply is still to come, and Deliver, which counts it off,
		// cannot take it for late before this lock is let go.
		s.abandoned.Add(1)
		return nil
	}
	if s.polled {
		return s.got.Swap(nil)
	}
	return <-s.ch
}

// send encodes h with the slot's request id and sends it.
func (c *Client) send(s *cslot, h wire.Header, key, value []byte) error {
	h.ReqID = s.id
	h.KeyLen, h.ValueLen = uint16(len(key)), uint32(len(value))
	n := h.Encode(s.hdr[:])
	return c.conn.Send(s.hdr[:n], key, value)
}

// call arms the slot and sends a request; on failure the slot is disarmed.
func (c *Client) call(s *cslot, h wire.Header, key, value []byte) error {
	s.arm()
	if err := c.send(s, h, key, value); err != nil {
		if m := s.disarm(); m != nil {
			m.Release()
		}
		return err
	}
	return nil
}

// wait blocks for the slot's reply, the timeout, ctx, or the connection's
// end. On success the caller owns the returned Message.
func (c *Client) wait(ctx context.Context, s *cslot, want wire.Type) (*transport.Message, wire.Frame, error) {
	m, err := c.await(ctx, s)
	if err == nil {
		f := s.frame
		if f.Type != want {
			m.Release()
			return nil, wire.Frame{}, fmt.Errorf("%w: got %s, want %s", ErrProtocol, f.Type, want)
		}
		return m, f, nil
	}
	if err == errNoReply {
		err = fmt.Errorf("%w: no %s within %v", ErrTimeout, want, c.opts.timeout)
	}
	return nil, wire.Frame{}, err
}

// finish waits for the reply that ends an operation without a value
// (SET_REPLY, DELETE_REPLY), closes the operation's trace as protocol p,
// and returns the reply's status as an error.
func (c *Client) finish(ctx context.Context, s *cslot, reply wire.Type, p Protocol, op string) error {
	m, f, err := c.wait(ctx, s, reply)
	if err != nil {
		return err
	}
	st := f.Status
	m.Release()
	c.traceEnd(ctx, s, p)
	return statusErr(op, st)
}

// errNoReply is await's timeout, worded by its callers.
var errNoReply = errors.New("no reply")

// await waits up to the client's timeout for the slot's reply; on
// failure the slot is disarmed and a reply that raced in is disposed of.
// When the transport lets callers poll (busy mode), the waiting goroutine
// drives the completion queue itself: the reply is then found and handed
// over on this goroutine, with no wake-up of another.
func (c *Client) await(ctx context.Context, s *cslot) (*transport.Message, error) {
	var err error
	if c.poller != nil || c.reader != nil {
		var m *transport.Message
		if c.poller != nil {
			m, err = c.spin(ctx, s)
		} else {
			m, err = c.drive(ctx, s)
		}
		if err == nil {
			return m, nil
		}
	} else {
		if s.timer == nil { // made on the slot's first wait, kept after
			s.timer = time.NewTimer(c.opts.timeout)
		} else {
			s.timer.Reset(c.opts.timeout)
		}
		select {
		case m := <-s.ch:
			s.timer.Stop()
			return m, nil
		case <-s.timer.C:
			err = errNoReply
		case <-ctx.Done():
			s.timer.Stop()
			err = ctxErr(ctx)
		case <-c.done:
			s.timer.Stop()
			err = c.connError(nil)
		}
	}
	if m := s.disarm(); m != nil {
		f, _ := wire.Decode(m.Data)
		c.late(m, &f)
	}
	return nil, err
}

// spin is await's busy-mode loop: poll, then look for the reply (another
// waiter may have dispatched it). PollOnce yields when yielding helps: a
// Gosched here after every empty burst would wake another thread to take
// this goroutine over, a context switch per wait.
// The timeout is a deadline read off the clock, not a timer: arming and
// stopping one per request costs more than the clock reads. The clock,
// ctx and the connection are looked at after every empty poll and every
// checkEvery-th poll that found something (other callers' replies).
func (c *Client) spin(ctx context.Context, s *cslot) (*transport.Message, error) {
	ctxDone := ctx.Done()
	var deadline int64
	for i := 1; ; i++ {
		if s.got.Load() != nil {
			return s.got.Swap(nil), nil
		}
		polled := c.poller.PollOnce()
		if polled && i%checkEvery != 0 {
			continue
		}
		select {
		case <-ctxDone:
			return nil, ctxErr(ctx)
		case <-c.done:
			return nil, c.connError(nil)
		default:
		}
		now := nanotime()
		if deadline == 0 {
			deadline = now + int64(c.opts.timeout)
		} else if now > deadline {
			return nil, errNoReply
		}
	}
}

// drive is await's loop when the caller reads its reply itself
// (c.reader): the transport reads and dispatches on this goroutine until
// the reply is in got, the timeout passes or ctx ends. A context that can
// end wakes the read through an AfterFunc, which costs an allocation; one
// that cannot (Background, WithoutCancel) costs nothing.
func (c *Client) drive(ctx context.Context, s *cslot) (*transport.Message, error) {
	deadline := time.Now().Add(c.opts.timeout)
	var stop func() bool
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, c.reader.Wake)
		defer stop()
	}
	for {
		err := c.reader.Await(s.settled, deadline)
		if m := s.got.Swap(nil); m != nil {
			return m, nil
		}
		switch {
		case ctx.Err() != nil:
			return nil, ctxErr(ctx)
		case errors.Is(err, transport.ErrWoken):
			continue // a Wake meant for an earlier request
		case err == nil, errors.Is(err, transport.ErrTimeout):
			return nil, errNoReply
		}
		return nil, c.connError(err)
	}
}

// isSettled is drive's done: the reply is in.
func (s *cslot) isSettled() bool { return s.got.Load() != nil }

// checkEvery bounds how many productive polls a busy waiter makes between
// looks at its deadline: a clock read costs more than a poll under CPU
// emulation.
const checkEvery = 16

func (c *Client) closedErr() error {
	select {
	case <-c.done:
		return c.connError(nil)
	default:
		return nil
	}
}

func (c *Client) checkKey(key []byte) error {
	if len(key) > c.limits.MaxKey {
		return fmt.Errorf("%w: %d bytes, server accepts %d", ErrKeyTooLong, len(key), c.limits.MaxKey)
	}
	return nil
}

// waitAny is wait for a GET, whose reply has one of two types.
func (c *Client) waitAny(ctx context.Context, s *cslot) (*transport.Message, error) {
	m, err := c.await(ctx, s)
	if err == errNoReply {
		err = fmt.Errorf("%w: no GET reply within %v", ErrTimeout, c.opts.timeout)
	}
	return m, err
}
