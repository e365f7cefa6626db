//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

const (
	stateOpen int32 = iota
	stateClosing
	stateClosed
)

// scratchSize is the largest message sendBuf gathers outside the ring:
// a HELLO reply with its limits or challenge, and the small replies of
// eager traffic, where the device's inline limit allows.
const scratchSize = 256

// drainGuard bounds how long a closing connection waits for its drain
// completion before it is torn down regardless (a provider that never
// flushes must not hang Close).
const drainGuard = 10 * time.Second

// settleGuard bounds how long an accepted connection's teardown waits for
// the CM to establish it or end the attempt.
const settleGuard = 5 * time.Second

// connErr is why a connection closed: cause for Handler.Closed (nil on a
// local Close), closed for operations that find it closed.
type connErr struct {
	cause  error
	closed error
}

// conn is one RC queue pair.
type conn struct {
	g   *group
	dev *device
	id  *C.struct_rdma_cm_id
	qp  *C.struct_ibv_qp
	qpn uint32
	cfg transport.Config
	// rq is where the QP's receives are posted: the group's (a client's
	// own, or a listener's shared queue), or, on a listener without a
	// shared queue, the connection's own (ownRQ), freed with it.
	rq    *recvQueue
	ownRQ bool

	h     transport.Handler
	ready chan struct{} // closed once h is set (or known to be nil)
	// isReady mirrors ready being closed: the receive poller looks at it
	// per completion, and a receive on even a closed channel takes a lock.
	isReady atomic.Bool

	info   transport.Info
	local  string
	remote string

	// Send ring: registered memory for outgoing messages, placed and
	// reclaimed in order by sendRing (its reserve guarded by sendMu).
	ring     *C.struct_kv_buf
	ringBase uint64
	ringMem  []byte // the ring, as seen from Go
	ringLkey C.uint32_t
	// scratch (C memory, scratchSize bytes) gathers inline messages
	// until the ring is open; see sendBuf.
	scratch   *byte
	sring     *sendRing
	msgSize   int
	maxInline C.int
	sendMu    sync.Mutex
	// sendStall bounds a wait for ring space (0: until closed);
	// stallTimer is its reusable timer, guarded by sendMu.
	sendStall  time.Duration
	stallTimer *time.Timer
	ringWake   chan struct{}
	// queueing (a server connection's) makes a send that finds the ring
	// full join backlog instead of waiting: the receive poller that sends
	// serves every connection.
	queueing bool
	backlog  backlog

	slots *slotTable

	winMu   sync.Mutex
	windows map[uint32]*window // bound windows by rkey
	shared  map[uint32]int     // MR-wide grants (no window support) by rkey
	mwFree  []*window
	mwAll   []*window

	// opMu keeps the QP alive under a post: posters hold it shared,
	// release takes it exclusively.
	opMu      sync.RWMutex
	state     atomic.Int32
	closedCh  chan struct{}
	errs      atomic.Pointer[connErr]
	finishing atomic.Bool
	done      chan struct{}

	// settled is closed (settle) once the CM has established an accepted
	// connection or ended the attempt; see listener.teardown.
	settled    chan struct{}
	settleOnce sync.Once

	// Client connections own their event channel.
	cm     *cmChannel
	cmDone chan struct{}

	// lastWQECh is closed (once, by lastWQE) when the QP's
	// LAST_WQE_REACHED event comes (events.go).
	lastWQE   sync.Once
	lastWQECh chan struct{}
}

type window struct {
	mw *C.struct_ibv_mw
	// sub is the window's own MR on mwByMR devices, from reg's cache.
	sub  *subMR
	reg  *region
	rkey uint32
	// peerClosed (guarded by winMu) is set when the peer invalidated the
	// window with a SEND_WITH_INV: Revoke then only recycles it.
	peerClosed bool
}

// newConn allocates what a connection needs before its QP. The send ring
// comes with the first send (openRing).
func newConn(g *group, d *device, cfg transport.Config) (*conn, error) {
	depth := cfg.SendDepth
	c := &conn{
		g:        g,
		dev:      d,
		cfg:      cfg,
		rq:       g.rq,
		ready:    make(chan struct{}),
		sring:    newSendRing(ringBytes(depth, cfg.MaxMessage, cfg.MaxSend), depth),
		msgSize:  cfg.MaxSend,
		ringWake: make(chan struct{}, 1),
		slots:    newSlotTable(depth, cfg.OpTimeout),
		windows:  map[uint32]*window{},
		shared:   map[uint32]int{},
		closedCh: make(chan struct{}),
		done:     make(chan struct{}),
		settled:  make(chan struct{}),

		lastWQECh: make(chan struct{}),
	}
	return c, nil
}

// openRing registers the send ring on the first send, so an accepted
// connection pins none until its HELLO is answered. Called under sendMu
// and opMu held for reading, on an open connection.
func (c *conn) openRing() error {
	size := int(c.sring.size)
	if err := errno(C.kv_buf_open(c.dev.d, C.size_t(size), C.IBV_ACCESS_LOCAL_WRITE, &c.ring)); err != nil {
		return fmt.Errorf("verbs: register a %d-byte send ring: %w", size, err)
	}
	c.ringBase = uint64(uintptr(c.ring.addr))
	c.ringMem = unsafe.Slice((*byte)(c.ring.addr), size)
	c.ringLkey = c.ring.mr.lkey
	return nil
}

// sendBuf is where an n-byte message at ring offset off is gathered for
// posting. Until a message needs the ring, those small enough to go inline
// use a scratch buffer instead, since the provider copies inline data at
// post time: a server connection that only ever sends small replies, and
// one still in its handshake, registers no ring. Called under sendMu and
// opMu held for reading, on an open connection.
func (c *conn) sendBuf(off uint64, n int) (p []byte, addr uint64, err error) {
	if c.ring == nil && n <= scratchSize && n <= int(c.maxInline) {
		if c.scratch == nil {
			c.scratch = (*byte)(C.malloc(scratchSize))
		}
		return unsafe.Slice(c.scratch, n), uint64(uintptr(unsafe.Pointer(c.scratch))), nil
	}
	if c.ring == nil {
		if err := c.openRing(); err != nil {
			return nil, 0, err
		}
	}
	return c.ringMem[off : off+uint64(n)], c.ringBase + off, nil
}

func (c *conn) settle() { c.settleOnce.Do(func() { close(c.settled) }) }

// markReady publishes c.h: call once, after setting it.
func (c *conn) markReady() {
	c.isReady.Store(true)
	close(c.ready)
}

// waitReady waits until c.h is set.
func (c *conn) waitReady() {
	if !c.isReady.Load() {
		<-c.ready
	}
}

// sendWR is the send queue size: ring, blocking operations, drain.
func (c *conn) sendWR() int { return 2*c.cfg.SendDepth + 1 }

// createQP makes the RC QP on id; srq is nil for a client.
func (c *conn) createQP(id *C.struct_rdma_cm_id, srq *C.struct_ibv_srq) error {
	var inl C.int
	r := C.kv_qp_open(id, c.dev.d, c.g.scq.c, c.g.rcq.c, srq, C.int(c.sendWR()), C.int(len(c.rq.msgs)), 256, &inl)
	if err := errno(r); err != nil {
		return fmt.Errorf("verbs: create QP (send %d, receive %d): %w", c.sendWR(), len(c.rq.msgs), err)
	}
	c.id = id
	c.qp = id.qp
	c.qpn = uint32(c.qp.qp_num)
	c.maxInline = inl
	c.dev.ev.add(c)
	return nil
}

// postRecvs posts the connection's own receive queue to its new QP; a
// QP on a shared queue has nothing to post.
func (c *conn) postRecvs() error {
	if !c.ownRQ {
		return nil
	}
	c.rq.setQP(c.qp)
	return c.rq.postAll()
}

// freeRecvs frees the connection's own receive queue, once no Message
// of it is held; the QP is gone or never was.
func (c *conn) freeRecvs() {
	if c.ownRQ {
		c.rq.free()
	}
}

// shortenRNR sets the QP's RNR timer (rnrTimer) once it is connected. A
// provider that refuses leaves rdma_cm's, which costs time, not
// correctness, so the connection goes on either way.
func (c *conn) shortenRNR() {
	C.kv_set_rnr_timer(c.qp, rnrTimer)
}

// routeTClass is the traffic class of the connection's route, -1 when
// rdma_cm gave it no path record.
func (c *conn) routeTClass() int { return int(C.kv_route_tclass(c.id)) }

// rnrTimerNow reads the QP's RNR timer back from the provider.
func (c *conn) rnrTimerNow() (int, error) {
	r := C.kv_rnr_timer(c.qp)
	return int(r), errno(r)
}

// describe fills the addresses and link info once connected.
func (c *conn) describe() {
	var buf [80]C.char
	C.kv_addr_str(c.id, 0, &buf[0], C.int(len(buf)))
	c.local = C.GoString(&buf[0])
	C.kv_addr_str(c.id, 1, &buf[0], C.int(len(buf)))
	c.remote = C.GoString(&buf[0])
	c.info = linkInfo(c.dev, c.id, c.qp, int(c.maxInline))
	c.info.Poll = c.cfg.Poll
}

func (c *conn) LocalAddr() string    { return c.local }
func (c *conn) RemoteAddr() string   { return c.remote }
func (c *conn) Info() transport.Info { return c.info }

func (c *conn) Register(size int, access transport.Access) (transport.Region, error) {
	if c.state.Load() != stateOpen {
		return nil, c.closedErr()
	}
	return newRegion(c.dev, size, access)
}

func (c *conn) closedErr() error {
	if e := c.errs.Load(); e != nil {
		return e.closed
	}
	return transport.ErrClosed
}

func (c *conn) cause() error {
	if e := c.errs.Load(); e != nil {
		return e.cause
	}
	return nil
}

// Send copies the parts into the next ring slot (registered C memory) and
// posts it, inline when it fits: one C call. It waits only when the ring
// is full.
func (c *conn) Send(a, b, d []byte) error {
	_, err := c.send(a, b, d, 0, nil)
	return err
}

// writeInv is a WRITE to post in the same call as, and ahead of, a send
// that invalidates its rkey.
type writeInv struct {
	laddr, raddr uint64
	n            uint32
	lkey, rkey   uint32
	wrid         uint64
}

// send is Send as a SEND_WITH_INV of inv when inv is not 0, and with wr's
// WRITE posted ahead of it in the same call when wr is not nil (inv is
// then wr.rkey). posted counts the work requests posted, also on error.
func (c *conn) send(a, b, d []byte, inv uint32, wr *writeInv) (posted int, err error) {
	n := len(a) + len(b) + len(d)
	if n > c.msgSize {
		return 0, fmt.Errorf("%w: %d bytes, this side sends at most %d", transport.ErrTooLarge, n, c.msgSize)
	}
	c.sendMu.Lock()
	if c.queueing && !c.backlog.empty() {
		return c.sendQueued(a, b, d, inv, wr)
	}
	off, seq, sig, ok := c.sring.reserve(n)
	if !ok {
		if c.queueing {
			return c.sendQueued(a, b, d, inv, wr)
		}
		if off, seq, sig, err = c.waitRing(n); err != nil {
			c.sendMu.Unlock()
			return 0, err
		}
	}
	posted, err = c.post(off, seq, sig, n, a, b, d, inv, wr)
	c.sendMu.Unlock()
	return posted, err
}

// post copies a message into the ring space reserve gave and posts it,
// inline when it fits: one C call. sendMu is held.
func (c *conn) post(off, seq uint64, sig bool, n int, a, b, d []byte, inv uint32, wr *writeInv) (posted int, err error) {
	csig := C.int(0)
	if sig {
		csig = 1
	}
	c.opMu.RLock()
	if c.state.Load() != stateOpen {
		c.opMu.RUnlock()
		return 0, c.closedErr()
	}
	p, addr, err := c.sendBuf(off, n)
	if err != nil {
		c.opMu.RUnlock()
		return 0, err
	}
	copy(p[copy(p, a)+copy(p[len(a):], b):], d)
	wrid := C.uint64_t(kindSend<<kindShift | seq&seqMask)
	var r C.int
	if wr == nil {
		r = C.kv_send_h(h(c.qp), C.uint64_t(addr), C.uint32_t(n), c.ringLkey, c.maxInline, csig,
			C.uint32_t(inv), wrid)
	} else {
		r = C.kv_post_write_send_h(h(c.qp), C.uint64_t(wr.laddr), C.uint32_t(wr.n), C.uint32_t(wr.lkey),
			C.uint64_t(wr.raddr), C.uint32_t(wr.rkey), C.uint64_t(wr.wrid),
			C.uint64_t(addr), C.uint32_t(n), c.ringLkey, c.maxInline, csig, C.uint32_t(inv), wrid)
	}
	c.opMu.RUnlock()
	switch {
	case r == 0:
		c.sring.posted(sig)
		posted = 1
		if wr != nil {
			posted = 2
		}
	case r > 0: // only the WRITE went out
		posted, r = 1, -r
	}
	if r != 0 {
		return posted, fmt.Errorf("verbs: post send: %w", errno(r))
	}
	return posted, nil
}

// waitRing waits, holding sendMu, until the ring has room for an n-byte
// message, and reserves it. A peer that leaves the ring full for sendStall
// (it stopped reposting receives, so every send is stuck in RNR retries) is
// treated as gone. Server connections queue instead (sendQueued).
func (c *conn) waitRing(n int) (off, seq uint64, sig bool, err error) {
	var expired <-chan time.Time
	if c.sendStall > 0 {
		if c.stallTimer == nil {
			c.stallTimer = time.NewTimer(c.sendStall)
		} else {
			c.stallTimer.Reset(c.sendStall)
		}
		defer c.stallTimer.Stop()
		expired = c.stallTimer.C
	}
	for {
		var ok bool
		if off, seq, sig, ok = c.sring.reserve(n); ok {
			return off, seq, sig, nil
		}
		if c.g.scq.busy {
			// Nobody else spins on the send CQ: reclaim the ring here.
			select {
			case <-c.closedCh:
				return 0, 0, false, c.closedErr()
			case <-expired:
				return 0, 0, false, c.stalled()
			default:
			}
			if r := c.g.scq.tryPoll(busySpins, true); r != pollGot {
				c.g.scq.pause(r, time.Now())
			}
			continue
		}
		select {
		case <-c.ringWake:
		case <-c.closedCh:
			return 0, 0, false, c.closedErr()
		case <-expired:
			return 0, 0, false, c.stalled()
		}
	}
}

// stalled drops a peer that left the send ring full for sendStall.
func (c *conn) stalled() error {
	err := fmt.Errorf("%w: peer consumed no message for %v", transport.ErrTimeout, c.sendStall)
	c.shutdown(err)
	return err
}

// ringDone runs on the send poller: every send up to seq has completed.
func (c *conn) ringDone(seq uint64) {
	c.sring.done(seq)
	select {
	case c.ringWake <- struct{}{}:
	default:
	}
}

func (c *conn) Write(local transport.Region, off, n int, raddr uint64, rkey uint32) error {
	return c.rdma(C.IBV_WR_RDMA_WRITE, local, off, n, raddr, rkey, 0)
}

func (c *conn) WriteImm(local transport.Region, off, n int, raddr uint64, rkey uint32, imm uint32) error {
	return c.rdma(C.IBV_WR_RDMA_WRITE_WITH_IMM, local, off, n, raddr, rkey, imm)
}

func (c *conn) Read(local transport.Region, off, n int, raddr uint64, rkey uint32) error {
	return c.rdma(C.IBV_WR_RDMA_READ, local, off, n, raddr, rkey, 0)
}

// ReadInvalidate is Read, then a SEND_WITH_INV that invalidates rkey at
// the peer (transport.PeerInvalidator). The send is posted only once the
// READ has completed: a fence would let one post carry both, but rxe can
// miss the fence's wake-up and leave the send queued indefinitely.
func (c *conn) ReadInvalidate(local transport.Region, off, n int, raddr uint64, rkey uint32, a, b, d []byte) error {
	if err := c.Read(local, off, n, raddr, rkey); err != nil {
		return err
	}
	_, err := c.send(a, b, d, rkey, nil)
	return err
}

// WriteInvalidate is Write and a SEND_WITH_INV that invalidates rkey at
// the peer, posted in one C call (transport.PeerInvalidator); it returns
// once the WRITE has completed.
func (c *conn) WriteInvalidate(local transport.Region, off, n int, raddr uint64, rkey uint32, a, b, d []byte) error {
	return c.writeSend(local, off, n, raddr, rkey, rkey, a, b, d)
}

// WriteSend is transport.WriteSender's: the WRITE and the message in one
// post, the message invalidating nothing.
func (c *conn) WriteSend(local transport.Region, off, n int, raddr uint64, rkey uint32, a, b, d []byte) error {
	return c.writeSend(local, off, n, raddr, rkey, 0, a, b, d)
}

// NoWriteImm is transport.WriteSender's: iWARP carries no immediate data.
func (c *conn) NoWriteImm() bool { return c.dev.caps.iwarp }

// writeSend posts a WRITE and a message that lands after it, invalidating
// the peer's window inv unless it is 0, and waits for the WRITE.
func (c *conn) writeSend(local transport.Region, off, n int, raddr uint64, rkey, inv uint32, a, b, d []byte) error {
	r, i, err := c.opStart(local, off, n)
	if err != nil {
		return err
	}
	wr := writeInv{laddr: r.addr + uint64(off), raddr: raddr, n: uint32(n), lkey: r.lkey, rkey: rkey,
		wrid: c.slots.arm(i)}
	posted, err := c.send(a, b, d, inv, &wr)
	switch {
	case posted == 0:
		return c.abandon(i, err)
	case err != nil:
		_ = c.wait(i) // the WRITE went out: its memory is busy until it completes
		return err
	}
	return c.wait(i)
}

// rdma posts one signaled one-sided operation and waits for the send
// poller to complete it: one C call on this goroutine.
func (c *conn) rdma(op C.int, local transport.Region, off, n int, raddr uint64, rkey, imm uint32) error {
	r, i, err := c.opStart(local, off, n)
	if err != nil {
		return err
	}
	wrid := c.slots.arm(i)
	if err := c.lockOpen(i); err != nil {
		return err
	}
	rc := C.kv_post_rdma_h(h(c.qp), op, C.uint64_t(r.addr+uint64(off)), C.uint32_t(n), C.uint32_t(r.lkey),
		C.uint64_t(raddr), C.uint32_t(rkey), C.uint32_t(imm), C.uint64_t(wrid))
	c.opMu.RUnlock()
	if rc != 0 {
		return c.abandon(i, fmt.Errorf("verbs: post: %w", errno(rc)))
	}
	return c.wait(i)
}

// opStart checks a one-sided operation's local range and takes an
// operation slot for it.
func (c *conn) opStart(local transport.Region, off, n int) (*region, uint32, error) {
	r, err := localRange(c.dev, local, off, n)
	if err != nil {
		return nil, 0, err
	}
	if n > math.MaxUint32 {
		return nil, 0, errUint32
	}
	i, err := c.acquire()
	return r, i, err
}

func (c *conn) acquire() (uint32, error) {
	c.slots.prepare()
	select {
	case i := <-c.slots.free:
		return i, nil
	case <-c.closedCh:
		return 0, c.closedErr()
	}
}

// acquireFor is acquire, or for a caller that must not wait (wait false)
// a slot free now: with none it reaps the send CQ once and tries again.
func (c *conn) acquireFor(wait bool) (uint32, error) {
	if wait {
		return c.acquire()
	}
	c.slots.prepare()
	for reaps := 0; ; reaps++ {
		select {
		case i := <-c.slots.free:
			return i, nil
		case <-c.closedCh:
			return 0, c.closedErr()
		default:
		}
		if reaps == maxReaps {
			return 0, fmt.Errorf("%w: %d operations already queued", errQueueFull, len(c.slots.slots))
		}
		// Completions may be waiting for the send poller, which another
		// goroutine holding the CPU keeps from running: reap them here,
		// or let it.
		if c.g.scq.tryPoll(1, false) == pollTaken {
			runtime.Gosched()
		}
	}
}

// maxReaps bounds how often acquireFor reaps the send CQ before it gives
// up: completions already there are taken in a few, while a peer that
// takes nothing keeps the slots however long one waits.
const maxReaps = 64

// lockOpen takes opMu's read side for a post on slot i, so that Close
// cannot destroy the QP under it; on a connection no longer open it
// frees the slot instead and returns the error to hand back. The caller
// releases opMu after its post.
func (c *conn) lockOpen(i uint32) error {
	c.opMu.RLock()
	if c.state.Load() != stateOpen {
		c.opMu.RUnlock()
		return c.abandon(i, c.closedErr())
	}
	return nil
}

// abandon returns a slot whose work request was never posted.
func (c *conn) abandon(i uint32, err error) error {
	c.slots.disarm(i)
	c.slots.free <- i
	return err
}

// wait blocks until slot i completes. On OpTimeout the connection is shut
// down (the operation may still touch memory until its QP is in the error
// state) and the flushed completion is awaited before returning.
func (c *conn) wait(i uint32) error {
	s := &c.slots.slots[i]
	var err error
	if c.g.scq.busy {
		err = c.spinWait(s)
	} else if s.timer == nil {
		err = <-s.done
	} else {
		s.timer.Reset(c.cfg.OpTimeout)
		select {
		case err = <-s.done:
			s.timer.Stop()
		case <-s.timer.C:
			c.shutdown(transport.ErrTimeout)
			<-s.done
			err = transport.ErrTimeout
		}
	}
	c.slots.free <- i
	return err
}

// spinWait is wait in busy mode: the caller polls the send CQ itself
// (whoever holds it completes every waiter's slot), so no goroutine has to
// be woken to hand the completion over. OpTimeout is a deadline read off
// the clock, not the slot's timer, which would be armed and stopped per
// operation; it starts at the first look, after the first empty poll.
func (c *conn) spinWait(s *opSlot) error {
	var deadline time.Time
	for i := 1; ; i++ {
		select {
		case err := <-s.done:
			return err
		default:
		}
		r := c.g.scq.tryPoll(busySpins, true)
		if r == pollGot && i%checkEvery != 0 {
			continue
		}
		now := time.Now()
		if s.timer != nil {
			if deadline.IsZero() {
				deadline = now.Add(c.cfg.OpTimeout)
			} else if now.After(deadline) {
				c.shutdown(transport.ErrTimeout)
				<-s.done
				return transport.ErrTimeout
			}
		}
		c.g.scq.pause(r, now)
	}
}

// checkEvery bounds how many productive polls a busy waiter makes between
// looks at its deadline: a clock read costs more than a poll under CPU
// emulation.
const checkEvery = 16

// CallerPolls is true for a client connection in busy mode
// (transport.Poller). A server connection's receive CQ is shared by every
// client and keeps its own spinning poller.
func (c *conn) CallerPolls() bool { return c.g.rcq.busy && c.rq == c.g.rq && !c.rq.shared() }

// PollOnce lets a caller waiting for a reply poll the receive CQ itself
// (transport.Poller); the background poller then only sweeps. When it
// finds nothing it also reclaims the send ring, which no goroutine spins
// on either. It yields at once when another goroutine holds the CQ, and
// once per yieldEvery while nothing arrives.
func (c *conn) PollOnce() bool {
	q := c.g.rcq
	if !c.CallerPolls() {
		return false
	}
	if !q.callerDriven.Load() {
		q.callerDriven.Store(true)
	}
	r := q.tryPoll(busySpins, false)
	if r == pollEmpty && c.g.scq.tryPoll(1, false) == pollGot {
		return true
	}
	if r != pollGot {
		q.pause(r, time.Now())
	}
	return r == pollGot
}

// Close shuts the connection down and, unless called from the Handler,
// waits until its resources are freed.
func (c *conn) Close() error {
	c.shutdown(nil)
	if !c.g.delivering.Load() {
		<-c.done
	}
	return nil
}

// shutdown starts closing: the QP enters the error state (flushing every
// outstanding work request), and a drain request posted behind them tells
// the send poller when the send queue is empty. The receive poller then
// delivers what is left, calls Closed and frees the QP.
func (c *conn) shutdown(cause error) {
	if !c.state.CompareAndSwap(stateOpen, stateClosing) {
		return
	}
	closed := transport.ErrClosed
	if cause != nil {
		if errors.Is(cause, transport.ErrClosed) {
			closed = cause
		} else {
			closed = fmt.Errorf("%w: %w", transport.ErrClosed, cause)
		}
	}
	c.errs.Store(&connErr{cause: cause, closed: closed})
	close(c.closedCh)
	c.opMu.RLock()
	// On iWARP rdma_disconnect leaves the QP in SQD (the iWARP verbs'
	// closing), where the drain below would wait out its guard: there
	// the QP goes to error as well, which flushes what is queued.
	if C.rdma_disconnect(c.id) != 0 || c.dev.caps.iwarp {
		C.kv_qp_error(c.qp)
	}
	// Only blocking operations need the drain (their callers must not
	// return while the RNIC may still touch their memory); with none in
	// flight the connection can be finished at once.
	r := C.int(-1)
	if c.slots.inflight.Load() > 0 {
		r = C.kv_post_drain(c.qp, C.uint64_t(uint64(kindDrain)<<kindShift))
	}
	c.opMu.RUnlock()
	if r != 0 {
		c.g.queueClosing(c)
		return
	}
	time.AfterFunc(drainGuard, func() {
		if !c.finishing.Load() {
			c.g.queueClosing(c)
		}
	})
}

// release frees the QP and what hangs off it; runs on the receive poller
// after Closed.
func (c *conn) release() {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	c.state.Store(stateClosed)
	c.slots.failAll(c.closedErr())
	if !c.rq.shared() {
		c.rq.shutdown()
	}
	// Windows first: a bound type-2 window holds a reference on its QP.
	c.winMu.Lock()
	for _, w := range c.mwAll {
		C.kv_mw_close(w.mw)
		if w.sub != nil {
			w.reg.putSub(w.sub)
		}
	}
	c.mwAll, c.mwFree, c.windows, c.shared = nil, nil, nil, nil
	c.winMu.Unlock()
	if c.rq.shared() {
		c.awaitLastWQE()
	}
	C.rdma_destroy_qp(c.id)
	c.dev.ev.drop(c)
	c.freeRecvs()
	C.kv_buf_close(c.ring)
	c.ring = nil
	C.free(unsafe.Pointer(c.scratch))
	c.scratch = nil
}
