//go:build linux && cgo

package verbs

import (
	"errors"
	"testing"
	"time"
)

// A detached slot goes back to the free list when its completion arrives,
// and nobody is handed its result; a waited-for slot's result reaches its
// done channel and the slot stays with its waiter.
func TestSlotDetachedCompletion(t *testing.T) {
	tb := newSlotTable(2, time.Second)
	tb.prepare()
	i, j := <-tb.free, <-tb.free
	wi, wj := tb.armDetached(i), tb.arm(j)
	if got := tb.inflight.Load(); got != 2 {
		t.Fatalf("inflight %d after arming two slots, want 2", got)
	}
	complete := func(wrid uint64, err error) { tb.complete(uint32(wrid), uint32(wrid>>32)&genMask, err) }
	complete(wi, nil)
	select {
	case k := <-tb.free:
		if k != i {
			t.Fatalf("slot %d freed, want the detached slot %d", k, i)
		}
	default:
		t.Fatalf("the detached slot %d was not freed by its completion", i)
	}
	if len(tb.slots[i].done) != 0 {
		t.Fatalf("the detached slot's result was handed to its done channel")
	}
	boom := errors.New("boom")
	complete(wj, boom)
	if err := <-tb.slots[j].done; err != boom {
		t.Fatalf("waited-for slot got %v, want %v", err, boom)
	}
	if len(tb.free) != 0 {
		t.Fatalf("the waited-for slot went back to the free list on completion")
	}
	if got := tb.inflight.Load(); got != 0 {
		t.Fatalf("inflight %d after both completions, want 0", got)
	}
}

// A stale completion (an earlier generation of the slot) is ignored, a
// failed post's disarm clears the detached mark, and failAll frees
// detached slots while handing the error to waiters.
func TestSlotDetachedDisarmAndFailAll(t *testing.T) {
	tb := newSlotTable(2, 0)
	tb.prepare()
	i := <-tb.free
	stale := tb.armDetached(i)
	tb.disarm(i)
	if tb.slots[i].detached {
		t.Fatalf("disarm left the slot detached")
	}
	tb.free <- i
	i = <-tb.free
	tb.arm(i)
	tb.complete(uint32(stale), uint32(stale>>32)&genMask, nil)
	if len(tb.slots[i].done) != 0 || len(tb.free) != 1 || tb.inflight.Load() != 1 {
		t.Fatalf("a completion of the slot's earlier generation was taken for the current one")
	}
	j := <-tb.free
	tb.armDetached(j)
	closed := errors.New("closed")
	tb.failAll(closed)
	if err := <-tb.slots[i].done; err != closed {
		t.Fatalf("failAll handed the waiter %v, want %v", err, closed)
	}
	if k := <-tb.free; k != j || len(tb.free) != 0 {
		t.Fatalf("failAll freed slot %d (free list %d long), want the detached slot %d alone", k, len(tb.free), j)
	}
	if got := tb.inflight.Load(); got != 0 {
		t.Fatalf("inflight %d after failAll, want 0", got)
	}
}
