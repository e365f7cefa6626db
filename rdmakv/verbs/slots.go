//go:build linux && cgo

package verbs

import (
	"sync"
	"sync/atomic"
	"time"
)

// opSlot is one blocking operation in flight. Its index and generation
// travel in the wr_id; the send poller hands the result back on done.
type opSlot struct {
	gen     atomic.Uint32
	pending atomic.Bool
	done    chan error
	timer   *time.Timer
	// detached: nobody waits; the completion frees the slot (set by its
	// owner before arm returns, read by whoever completes it).
	detached bool
}

// slotTable bounds blocking operations in flight (Config.SendDepth) and
// carries their completions without allocating. The slots' channels and
// timers are made on the first operation, so a connection that never
// waits on one (a server's) holds none.
type slotTable struct {
	slots   []opSlot
	free    chan uint32
	timeout time.Duration
	once    sync.Once
	// inflight counts armed slots; a closing connection with none skips
	// the drain.
	inflight atomic.Int32
}

func newSlotTable(n int, timeout time.Duration) *slotTable {
	t := &slotTable{slots: make([]opSlot, n), free: make(chan uint32, n), timeout: timeout}
	for i := range t.slots {
		t.free <- uint32(i)
	}
	return t
}

// prepare readies the slots before the first operation.
func (t *slotTable) prepare() {
	t.once.Do(func() {
		for i := range t.slots {
			s := &t.slots[i]
			s.done = make(chan error, 1)
			if t.timeout > 0 {
				s.timer = time.NewTimer(time.Hour)
				s.timer.Stop()
			}
		}
	})
}

// arm marks slot i in flight and returns its wr_id.
func (t *slotTable) arm(i uint32) uint64 {
	s := &t.slots[i]
	gen := (s.gen.Add(1)) & genMask
	t.inflight.Add(1)
	s.pending.Store(true)
	return kindOp<<kindShift | uint64(gen)<<32 | uint64(i)
}

// armDetached is arm for an operation nobody waits for: its completion
// frees the slot (a failed one has already failed the QP).
func (t *slotTable) armDetached(i uint32) uint64 {
	t.slots[i].detached = true
	return t.arm(i)
}

// disarm undoes arm when the post itself failed.
func (t *slotTable) disarm(i uint32) {
	s := &t.slots[i]
	if s.pending.CompareAndSwap(true, false) {
		t.inflight.Add(-1)
		s.detached = false
	}
}

// finish hands slot i's result to its waiter, or frees a detached slot.
func (t *slotTable) finish(i uint32, err error) {
	s := &t.slots[i]
	t.inflight.Add(-1)
	if s.detached {
		s.detached = false
		t.free <- i
		return
	}
	s.done <- err
}

func (t *slotTable) complete(i, gen uint32, err error) {
	if int(i) >= len(t.slots) {
		return
	}
	s := &t.slots[i]
	if s.gen.Load()&genMask != gen || !s.pending.CompareAndSwap(true, false) {
		return
	}
	t.finish(i, err)
}

// failAll completes every slot still in flight; used when a QP is torn
// down without its drain completing.
func (t *slotTable) failAll(err error) {
	for i := range t.slots {
		s := &t.slots[i]
		if s.pending.CompareAndSwap(true, false) {
			t.finish(uint32(i), err)
		}
	}
}
