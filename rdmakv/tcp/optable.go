package tcp

import (
	"sync"
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
	// completed reports that done holds the completion (an Await's done).
	completed func() bool
}

// opTable is built on the first one-sided op, so a connection that never
// posts one (every accepted connection of a KV server) costs nothing here.
// Free slots are reused last-in first-out and each gets its channel and
// timer on its first use, so a connection holds only as many as it ever
// had in flight.
type opTable struct {
	depth     int
	onTimeout func(*opSlot)
	once      sync.Once
	built     atomic.Pointer[opSlots]
}

type opSlots struct {
	slots []opSlot
	sem   chan struct{} // a token per free slot
	mu    sync.Mutex
	free  []int
}

func newOpTable(depth int, onTimeout func(*opSlot)) *opTable {
	return &opTable{depth: depth, onTimeout: onTimeout}
}

// ready returns the slots, building them on first use; posters call it.
func (t *opTable) ready() *opSlots {
	t.once.Do(func() {
		o := &opSlots{slots: make([]opSlot, t.depth), sem: make(chan struct{}, t.depth), free: make([]int, t.depth)}
		for i := range o.slots {
			o.free[i] = t.depth - 1 - i
			o.sem <- struct{}{}
		}
		t.built.Store(o)
	})
	return t.built.Load()
}

// take waits for a free slot; false once closing is closed.
func (t *opTable) take(o *opSlots, closing <-chan struct{}) (int, bool) {
	select {
	case <-o.sem:
	case <-closing:
		return 0, false
	}
	o.mu.Lock()
	i := o.free[len(o.free)-1]
	o.free = o.free[:len(o.free)-1]
	o.mu.Unlock()
	if s := &o.slots[i]; s.done == nil {
		s.done = make(chan error, 1)
		s.timer = time.AfterFunc(time.Hour, func() { t.onTimeout(s) })
		s.timer.Stop()
		s.completed = func() bool { return len(s.done) > 0 }
	}
	return i, true
}

func (o *opSlots) give(i int) {
	o.mu.Lock()
	o.free = append(o.free, i)
	o.mu.Unlock()
	o.sem <- struct{}{}
}

// slots is what exists so far: none before the first op.
func (t *opTable) slots() []opSlot {
	if o := t.built.Load(); o != nil {
		return o.slots
	}
	return nil
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
	slots := t.slots()
	for i := range slots {
		slots[i].complete(err)
	}
}

// claim finds the pending slot a completion names, or nil. ops is a bit
// mask (1<<op) of the requests the completion may answer.
func (t *opTable) claim(id uint64, ops uint32) *opSlot {
	idx := uint32(id)
	slots := t.slots()
	if idx >= uint32(len(slots)) {
		return nil
	}
	s := &slots[idx]
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
