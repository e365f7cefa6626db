package tcp

import (
	"sync/atomic"
	"time"
)

// Slot states. A slot goes idle -> pending when its request is posted; the
// reader moves it pending -> claimed while it copies a READ_RESP into the
// destination, then to done; close and timeout move it pending -> done.
// Whoever wins the move from pending sends the one completion on done, so
// the initiator never returns while the reader may still write to its
// memory.
const (
	slotIdle uint32 = iota
	slotPending
	slotClaimed
	slotDone
)

// opSlot tracks one one-sided op in flight. Slots are preallocated so an op
// costs no allocation; the wr id on the wire is gen<<32 | index, so a late
// completion for an earlier use of the slot is recognised as foreign.
type opSlot struct {
	state    atomic.Uint32
	gen      atomic.Uint32
	op       byte   // frame op; set before state becomes pending
	dst      []byte // READ destination; set before state becomes pending
	done     chan error
	timer    *time.Timer // armed per op when Config.OpTimeout is set
	timedOut atomic.Bool
}

type opTable struct {
	slots []opSlot
	free  chan int
}

func newOpTable(depth int, onTimeout func(*opSlot)) *opTable {
	t := &opTable{slots: make([]opSlot, depth), free: make(chan int, depth)}
	for i := range t.slots {
		s := &t.slots[i]
		s.done = make(chan error, 1)
		s.timer = time.AfterFunc(time.Hour, func() { onTimeout(s) })
		s.timer.Stop()
		t.free <- i
	}
	return t
}

func wrid(idx int, gen uint32) uint64 { return uint64(gen)<<32 | uint64(uint32(idx)) }

// complete finishes a pending op with err unless someone else already has.
func (s *opSlot) complete(err error) bool {
	if !s.state.CompareAndSwap(slotPending, slotDone) {
		return false
	}
	s.done <- err
	return true
}

// failAll completes every pending op with err.
func (t *opTable) failAll(err error) {
	for i := range t.slots {
		t.slots[i].complete(err)
	}
}

// claim finds the pending slot a completion names, or nil. ops is a bit
// mask (1<<op) of the requests the completion may answer.
func (t *opTable) claim(id uint64, ops uint32) *opSlot {
	idx := uint32(id)
	if idx >= uint32(len(t.slots)) {
		return nil
	}
	s := &t.slots[idx]
	if !s.state.CompareAndSwap(slotPending, slotClaimed) {
		return nil
	}
	if s.gen.Load() != uint32(id>>32) || ops&(1<<s.op) == 0 {
		// Not ours after all: give it back so close fails it normally.
		s.state.Store(slotPending)
		return nil
	}
	return s
}

// finish completes a claimed slot.
func (s *opSlot) finish(err error) {
	s.state.Store(slotDone)
	s.done <- err
}
