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

// recvQueue is a set of receive buffers, posted either to a shared receive
// queue (server) or to one QP's receive queue (client), with one
// preallocated Message per buffer. A buffer handed to the Handler stays out
// of circulation until its Message is released; the memory is freed only
// once the queue is destroyed and no Message is held.
type recvQueue struct {
	buf   *C.struct_kv_buf
	dev   *device
	size  int
	base  uint64
	lkey  C.uint32_t
	msgs  []transport.Message
	views [][]byte

	srq *C.struct_ibv_srq
	qp  *C.struct_ibv_qp

	mu     sync.RWMutex // Release's repost against shutdown
	closed bool         // guarded by mu

	// handoff orders a Release (which writes the Message) before the
	// poller refills the same Message: the hardware orders the two, but
	// the Go memory model needs an edge of its own.
	handoff   atomic.Uint64
	held      atomic.Int64
	destroyed atomic.Bool
	freeOnce  sync.Once
}

func newRecvQueue(d *device, depth, size int) (*recvQueue, error) {
	var buf *C.struct_kv_buf
	if err := errno(C.kv_buf_open(d.d, C.size_t(depth*size), C.IBV_ACCESS_LOCAL_WRITE, &buf)); err != nil {
		return nil, fmt.Errorf("verbs: register %d receive buffers of %d bytes: %w", depth, size, err)
	}
	d.acquire()
	q := &recvQueue{
		buf:   buf,
		dev:   d,
		size:  size,
		base:  uint64(uintptr(buf.addr)),
		lkey:  buf.mr.lkey,
		msgs:  make([]transport.Message, depth),
		views: make([][]byte, depth),
	}
	all := unsafe.Slice((*byte)(buf.addr), depth*size)
	for i := range q.views {
		q.views[i] = all[i*size : (i+1)*size : (i+1)*size]
	}
	return q, nil
}

func (q *recvQueue) post(i int) C.int {
	return C.kv_post_recv(q.qp, q.srq, C.uint64_t(q.base+uint64(i*q.size)), C.uint32_t(q.size), q.lkey,
		C.uint64_t(kindRecv<<kindShift|uint64(i)))
}

// postAll posts every buffer; called once, before any completion can come.
func (q *recvQueue) postAll() error {
	for i := range q.msgs {
		if err := errno(q.post(i)); err != nil {
			return fmt.Errorf("verbs: post receive: %w", err)
		}
	}
	return nil
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
		m.Data = q.views[i][:wc.byte_len]
		m.Imm = 0
		m.Len = int(wc.byte_len)
	}
	m.Bind(q, i)
	return m
}

// ReleaseMessage reposts buffer i, unless the queue is shutting down.
func (q *recvQueue) ReleaseMessage(i int) {
	q.handoff.Add(1)
	q.repost(i)
	q.held.Add(-1)
	q.maybeFree()
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
		C.kv_buf_close(q.buf)
		q.dev.release()
	})
}
