//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// deferMax is how many released receive buffers a busy-polled queue
// keeps for its poller to repost, and how many buffers it has beyond the
// depth asked for, so that the depth stays posted. Under CPU emulation a
// crossing into C costs about half a microsecond, and an eager GET's
// client releases its reply's buffer inside the measured operation.
const deferMax = 8

// recvQueue is a set of receive buffers, posted either to a shared receive
// queue (server) or to one QP's receive queue (client), with one
// preallocated Message per buffer. A buffer handed to the Handler stays out
// of circulation until its Message is released; the memory is freed only
// once the queue is destroyed and no Message is held.
//
// On a busy-polled queue Release does not cross into C: it leaves the
// buffer in pend, and the poller's next burst reposts it in the same call
// that polls (kv_poll). A Release that fills pend reposts the lot itself.
//
// Buffers larger than a head (headSize) are received in two pieces: the
// first headSize bytes into the buffer's head, in an array of heads after
// the buffers, and the rest into the buffer from offset headSize. A
// message that fits its head is handed over from there; a longer one is
// made whole by copying the head into the buffer's first headSize bytes,
// which the device never writes. Each message then starts in a few
// densely packed pages, not at the start of its own buffer: a server's
// shared queue cycles through hundreds of buffers of the largest eager
// message, and in the Soft-RoCE guest decoding a request from a page
// first touched since that buffer's last turn took the server 0.25 to
// 0.5 us longer than from the heads.
type recvQueue struct {
	rq    *C.struct_kv_rq
	dev   *device
	size  int
	split bool
	// The buffers come in chunks of perChunk, registered one by one
	// (grow); msgs, views and heads have room for maxChunks of them, and
	// chunks[:nchunks] are in use. growMu serialises growing.
	perChunk  int
	maxChunks int
	growMu    sync.Mutex
	bufs      []*C.struct_kv_buf // guarded by growMu, and by mu against free
	nchunks   atomic.Int32
	msgs      []transport.Message
	views     [][]byte
	heads     [][]byte // nil unless split

	// pendMu guards pend (C memory, the kv_rq's pend or post array) and
	// pendN. The poller swaps the two arrays under it and reposts the
	// one it took without holding it; pendN is read without it as a hint.
	deferred bool
	pendMu   sync.Mutex
	pend     []C.uint32_t
	spare    []C.uint32_t
	pendN    atomic.Int32

	mu     sync.RWMutex // Release's repost against shutdown
	closed bool         // guarded by mu

	// handoff orders a Release (which writes the Message) before the
	// poller refills the same Message, and a grow's views before the
	// poller reads them: the hardware orders these, but the Go memory
	// model needs an edge of its own.
	handoff   atomic.Uint64
	held      atomic.Int64
	destroyed atomic.Bool
	freeOnce  sync.Once
}

// recvBuffers is how many receive buffers a queue of depth has: the
// depth, plus deferMax when its poller reposts released ones (busy).
func recvBuffers(depth int, poll transport.Poll) int {
	if poll == transport.PollBusy {
		return depth + deferMax
	}
	return depth
}

// recvChunks is how many chunks a queue of depth that may grow to
// maxDepth receives needs: each chunk keeps depth more posted.
func recvChunks(depth, maxDepth int) int {
	return min(max(1, (maxDepth+depth-1)/depth), C.KV_RQ_CHUNKS)
}

// newRecvQueue registers recvBuffers(depth, poll) buffers of size bytes,
// with room to grow (grow) by as many again, chunk by chunk, up to
// maxChunks chunks.
func newRecvQueue(d *device, depth, size int, poll transport.Poll, maxChunks int) (*recvQueue, error) {
	n := recvBuffers(depth, poll)
	deferred := n > depth
	dmax := 0
	if deferred {
		dmax = deferMax
	}
	rq, err := C.kv_rq_open(C.uint32_t(size), C.uint32_t(n), C.int(dmax))
	if rq == nil {
		return nil, fmt.Errorf("verbs: receive queue: %w", err)
	}
	maxChunks = max(maxChunks, 1)
	q := &recvQueue{
		rq:        rq,
		dev:       d,
		size:      size,
		split:     size > headSize,
		perChunk:  n,
		maxChunks: maxChunks,
		msgs:      make([]transport.Message, n*maxChunks),
		views:     make([][]byte, n*maxChunks),
		deferred:  deferred,
	}
	if q.split {
		q.heads = make([][]byte, n*maxChunks)
	}
	if deferred {
		q.pend = unsafe.Slice(rq.pend, deferMax)
		q.spare = unsafe.Slice(rq.post, deferMax)
	}
	if err := q.addChunk(); err != nil {
		C.kv_rq_close(rq)
		return nil, err
	}
	d.acquire()
	return q, nil
}

// addChunk registers the next chunk of buffers and fills in their views;
// the caller holds growMu (or owns q alone) and posts them after.
func (q *recvQueue) addChunk() error {
	c := int(q.nchunks.Load())
	n, size := q.perChunk, q.size
	// The heads start on a cache line after the buffers.
	headAt := (n*size + 63) &^ 63
	total := n * size
	if q.split {
		total = headAt + n*headSize
	}
	var buf *C.struct_kv_buf
	if err := errno(C.kv_buf_open(q.dev.d, C.size_t(total), C.IBV_ACCESS_LOCAL_WRITE, &buf)); err != nil {
		return fmt.Errorf("verbs: register %d receive buffers of %d bytes: %w", n, size, err)
	}
	base := uint64(uintptr(buf.addr))
	ch := &q.rq.chunks[c]
	ch.base, ch.lkey = C.uint64_t(base), buf.mr.lkey
	if q.split {
		ch.heads = C.uint64_t(base + uint64(headAt))
	}
	all := unsafe.Slice((*byte)(buf.addr), total)
	for j := range n {
		i := c*n + j
		q.views[i] = all[j*size : (j+1)*size : (j+1)*size]
		if q.split {
			at := headAt + j*headSize
			q.heads[i] = all[at : at+headSize : at+headSize]
		}
	}
	q.bufs = append(q.bufs, buf)
	q.nchunks.Store(int32(c + 1))
	q.handoff.Add(1)
	return nil
}

// grow registers and posts one more chunk of buffers and reports how
// many the queue has; it fails at maxChunks or once the queue is shut
// down.
func (q *recvQueue) grow() (int, error) {
	q.growMu.Lock()
	defer q.growMu.Unlock()
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		return 0, fmt.Errorf("verbs: grow receive queue: %w", transport.ErrClosed)
	}
	c := int(q.nchunks.Load())
	if c >= q.maxChunks {
		return c * q.perChunk, fmt.Errorf("verbs: receive queue at its most, %d buffers", c*q.perChunk)
	}
	if err := q.addChunk(); err != nil {
		return c * q.perChunk, err
	}
	for i := c * q.perChunk; i < (c+1)*q.perChunk; i++ {
		if err := errno(q.post(i)); err != nil {
			return (c + 1) * q.perChunk, fmt.Errorf("verbs: post receive: %w", err)
		}
	}
	return (c + 1) * q.perChunk, nil
}

// buffers is how many buffers the queue has now.
func (q *recvQueue) buffers() int { return int(q.nchunks.Load()) * q.perChunk }

// setQP names the QP a client's buffers are posted to.
func (q *recvQueue) setQP(qp *C.struct_ibv_qp) { q.rq.qp = qp }

// setSRQ names the shared receive queue a server's buffers are posted to.
func (q *recvQueue) setSRQ(srq *C.struct_ibv_srq) { q.rq.srq = srq }

// shared reports whether the buffers go to a shared receive queue.
func (q *recvQueue) shared() bool { return q.rq.srq != nil }

func (q *recvQueue) post(i int) C.int {
	idx := C.uint32_t(i)
	return C.kv_post_recvs_h(h(q.rq), &idx, 1)
}

// postAll posts the first chunk's buffers; called once, before any
// completion can come.
func (q *recvQueue) postAll() error {
	for i := range q.perChunk {
		if err := errno(q.post(i)); err != nil {
			return fmt.Errorf("verbs: post receive: %w", err)
		}
	}
	return nil
}

// take hands the poller the buffers released since its last burst, for
// kv_poll to repost; q may be nil (a CQ with no receive queue). When it
// returns n > 0, q stays read-locked until taken(n), after the call, so
// that the queue is not destroyed under it. Polls are serialised by the
// CQ's lock, so the array taken is not written until the next take swaps
// it back.
func (q *recvQueue) take() (rq *C.struct_kv_rq, idx *C.uint32_t, n C.int) {
	if q == nil || q.pendN.Load() == 0 {
		return nil, nil, 0
	}
	q.mu.RLock()
	if q.closed {
		q.mu.RUnlock()
		return nil, nil, 0
	}
	q.pendMu.Lock()
	p, n := q.pend, C.int(q.pendN.Load())
	q.pend, q.spare = q.spare, q.pend
	q.pendN.Store(0)
	q.pendMu.Unlock()
	if n == 0 {
		q.mu.RUnlock()
		return nil, nil, 0
	}
	return q.rq, &p[0], n
}

// taken ends a take that returned n.
func (q *recvQueue) taken(n C.int) {
	if n > 0 {
		q.mu.RUnlock()
	}
}

// fill prepares buffer i's Message for a completion.
func (q *recvQueue) fill(i int, wc *C.struct_kv_wc) *transport.Message {
	q.handoff.Load()
	q.held.Add(1)
	m := &q.msgs[i]
	if wc.opcode == C.IBV_WC_RECV_RDMA_WITH_IMM {
		m.Kind = transport.KindWriteImm
		m.Data = nil
		m.Imm = uint32(wc.imm)
		m.Len = int(wc.byte_len)
	} else {
		m.Kind = transport.KindRecv
		m.Data = q.data(i, int(wc.byte_len))
		m.Imm = 0
		m.Len = int(wc.byte_len)
	}
	m.Bind(q, i)
	return m
}

// data is buffer i's message of n bytes, in one piece.
func (q *recvQueue) data(i, n int) []byte {
	if q.heads == nil {
		return q.views[i][:n]
	}
	if n <= headSize {
		return q.heads[i][:n]
	}
	copy(q.views[i][:headSize], q.heads[i])
	return q.views[i][:n]
}

// ReleaseMessage reposts buffer i, unless the queue is shutting down; on
// a busy-polled queue it leaves that to the poller's next burst.
func (q *recvQueue) ReleaseMessage(i int) {
	q.handoff.Add(1)
	if q.deferred {
		q.defer1(i)
	} else {
		q.repost(i)
	}
	q.held.Add(-1)
	q.maybeFree()
}

// defer1 adds buffer i to pend, and reposts pend when that fills it. It
// takes q.mu before pendMu, in the poller's order: with a shutdown
// waiting to write, the other order would deadlock against a poll.
func (q *recvQueue) defer1(i int) {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		return
	}
	q.pendMu.Lock()
	n := q.pendN.Load()
	q.pend[n] = C.uint32_t(i)
	n++
	if n == deferMax {
		C.kv_post_recvs_h(h(q.rq), &q.pend[0], C.int(n))
		n = 0
	}
	q.pendN.Store(n)
	q.pendMu.Unlock()
}

// repost puts a buffer back; failures (QP in error, queue shut down) just
// leave it out: the connection is going away.
func (q *recvQueue) repost(i int) {
	q.mu.RLock()
	if !q.closed {
		q.post(i)
	}
	q.mu.RUnlock()
}

// shutdown stops reposting; the caller then destroys the QP or SRQ and
// calls free.
func (q *recvQueue) shutdown() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
}

// free releases the memory as soon as no Message is held.
func (q *recvQueue) free() {
	q.shutdown()
	q.destroyed.Store(true)
	q.maybeFree()
}

func (q *recvQueue) maybeFree() {
	if !q.destroyed.Load() || q.held.Load() != 0 {
		return
	}
	q.freeOnce.Do(func() {
		C.kv_rq_close(q.rq)
		q.growMu.Lock()
		for i := len(q.bufs) - 1; i >= 0; i-- {
			C.kv_buf_close(q.bufs[i])
		}
		q.bufs = nil
		q.growMu.Unlock()
		q.dev.release()
	})
}
