package tcp

import (
	"sync/atomic"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// recvPool is a connection's receive queue: depth buffers of size bytes in
// one mapping (its pages count only once written), a Message per buffer
// (made with the first message, so a connection that never sends one holds
// none), and the free list the reader takes from. The mapping outlives the
// connection while the handler still holds Messages: it is unmapped when
// the reader has exited and the last Message is released, whichever comes
// last.
type recvPool struct {
	m    *mapping
	size int
	msgs []transport.Message
	held []atomic.Bool
	free chan int
	refs atomic.Int64 // the reader's reference plus one per held Message
}

func newRecvPool(depth, size int) (*recvPool, error) {
	m, err := newMapping(depth * size)
	if err != nil {
		return nil, err
	}
	p := &recvPool{
		m:    m,
		size: size,
		held: make([]atomic.Bool, depth),
		free: make(chan int, depth),
	}
	p.refs.Store(1)
	for i := range depth {
		p.free <- i
	}
	return p, nil
}

func (p *recvPool) buf(slot int) []byte {
	return p.m.mem[slot*p.size : (slot+1)*p.size : (slot+1)*p.size]
}

// take hands slot to the handler as a filled Message.
func (p *recvPool) take(slot int) *transport.Message {
	p.held[slot].Store(true)
	p.refs.Add(1)
	if p.msgs == nil {
		p.msgs = make([]transport.Message, len(p.held))
	}
	m := &p.msgs[slot]
	m.Bind(p, slot)
	return m
}

// ReleaseMessage reposts a receive buffer.
func (p *recvPool) ReleaseMessage(slot int) {
	if slot < 0 || slot >= len(p.held) || !p.held[slot].CompareAndSwap(true, false) {
		return
	}
	p.free <- slot // cannot block: each slot is in the channel at most once
	p.unref()
}

func (p *recvPool) unref() {
	if p.refs.Add(-1) == 0 {
		_ = p.m.unmap()
	}
}
