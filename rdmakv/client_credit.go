package rdmakv

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// clientCredit is the client's side of the server's credit
// (server_credit.go): it sends a message that takes a receive of the
// server's (a request, a release, a WRITE_WITH_IMM) only while it has
// sent fewer than the server last said it may, so it never sends into a
// receive queue that has no room for it.
type clientCredit struct {
	sent, limit atomic.Uint32
	// waiters counts callers waiting for credit; wake, of capacity 1,
	// wakes one, which passes the wake-up on while credit is left.
	waiters atomic.Int32
	wake    chan struct{}
	// waits counts the times a caller found no credit.
	waits atomic.Uint64
}

// start begins counting with the handshake's credit.
func (cr *clientCredit) start(limit uint32) {
	cr.wake = make(chan struct{}, 1)
	cr.limit.Store(limit)
}

// take uses one credit, if there is one.
func (cr *clientCredit) take() bool {
	for {
		s := cr.sent.Load()
		if int32(cr.limit.Load()-s) <= 0 {
			return false
		}
		if cr.sent.CompareAndSwap(s, s+1) {
			return true
		}
	}
}

// available reports whether a take could succeed.
func (cr *clientCredit) available() bool { return int32(cr.limit.Load()-cr.sent.Load()) > 0 }

// raise takes the credit a message from the server carries. Messages
// told at different times may cross, so it only ever goes up.
func (cr *clientCredit) raise(v uint32) {
	for {
		l := cr.limit.Load()
		if int32(v-l) <= 0 {
			return
		}
		if cr.limit.CompareAndSwap(l, v) {
			break
		}
	}
	cr.signal()
}

// signal wakes a waiter, if any.
func (cr *clientCredit) signal() {
	if cr.waiters.Load() > 0 {
		select {
		case cr.wake <- struct{}{}:
		default:
		}
	}
}

// takeCredit uses one credit, waiting up to the client's timeout for
// the server to give more when there is none.
func (c *Client) takeCredit() error {
	if c.credit.take() {
		return nil
	}
	return c.waitCredit()
}

// waitCredit is takeCredit's slow path.
func (c *Client) waitCredit() error {
	cr := &c.credit
	cr.waits.Add(1)
	cr.waiters.Add(1)
	defer cr.waiters.Add(-1)
	took := func() bool {
		if !cr.take() {
			return false
		}
		if cr.available() {
			cr.signal()
		}
		return true
	}
	return c.waitServer(context.Background(), took, cr.available, cr.wake, func() error { return errNoCredit(c.opts.timeout) })
}

// waitServer is the slow path of a send that waits for the server: for
// credit (waitCredit) or for late replies (awaitLate). Either comes with
// a message from the server, so a waiter drives the transport as a
// reply's does (await): it polls in busy mode, reads itself where it
// reads its replies, and otherwise waits for Deliver's wake-up. got
// takes what was waited for; ready says whether it could; timedOut is
// the error past the client's timeout. ctx ends the wait too.
func (c *Client) waitServer(ctx context.Context, got, ready func() bool, wake <-chan struct{}, timedOut func() error) error {
	deadline := time.Now().Add(c.opts.timeout)
	var timer *time.Timer
	for !got() {
		if err := c.closedErr(); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctxErr(ctx)
		}
		if time.Now().After(deadline) {
			return timedOut()
		}
		switch {
		case c.poller != nil:
			c.poller.PollOnce()
		case c.reader != nil:
			err := c.reader.Await(ready, deadline)
			if err != nil && !errors.Is(err, transport.ErrTimeout) && !errors.Is(err, transport.ErrWoken) {
				return c.connError(err)
			}
		default:
			if timer == nil {
				timer = time.NewTimer(time.Until(deadline))
				defer timer.Stop()
			}
			select {
			case <-wake:
			case <-timer.C:
			case <-c.done:
			case <-ctx.Done():
			}
		}
	}
	return nil
}

func errNoCredit(d time.Duration) error {
	return fmt.Errorf("%w: the server gave no credit to send within %v", ErrTimeout, d)
}

// CreditWaits is how many times a message waited for the server's
// credit: the server had no receive to spare for this client then (it
// shares them among its connections on verbs; see docs/PROTOCOL.md,
// "Credits"). Time spent so is part of the operations' latency.
func (c *Client) CreditWaits() uint64 { return c.credit.waits.Load() }
