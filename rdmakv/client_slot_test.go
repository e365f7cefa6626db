package rdmakv

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// TestSlotHandoff drives acquire and releaseSlot by hand: a slot given
// back with nobody waiting parks in hot and is taken from there; one given
// back while a caller blocks on free must reach that caller, and one given
// back while hot is taken goes to free.
func TestSlotHandoff(t *testing.T) {
	c := &Client{free: make(chan *cslot, 2), done: make(chan struct{})}
	a, b := &cslot{idx: 0}, &cslot{idx: 1}
	ctx := context.Background()

	c.releaseSlot(a)
	if c.hot.Load() != a || len(c.free) != 0 {
		t.Fatalf("released with no waiter: hot %v, %d in free; want hot", c.hot.Load(), len(c.free))
	}
	c.releaseSlot(b)
	if len(c.free) != 1 {
		t.Fatalf("released with hot taken: %d in free, want 1", len(c.free))
	}
	for _, want := range []*cslot{a, b} {
		if s, err := c.acquire(ctx); err != nil || s != want {
			t.Fatalf("acquire = slot %v, %v; want slot %d", s, err, want.idx)
		}
	}

	// The bound is a hang guard: a lost hand-off leaves the caller blocked.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	got := make(chan *cslot)
	go func() {
		s, _ := c.acquire(wctx)
		got <- s
	}()
	for c.waiting.Load() == 0 {
		runtime.Gosched()
	}
	c.releaseSlot(a)
	if s := <-got; s != a {
		t.Fatalf("blocked caller got slot %v, want slot 0", s)
	}
	if c.hot.Load() != nil || len(c.free) != 0 {
		t.Fatal("the slot handed to the blocked caller was left in hot or free as well")
	}
}

// TestSlotsUnderContention has more callers than slots on one client:
// every request must get a slot and its own reply.
func TestSlotsUnderContention(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s, WithDepth(2))
	ctx := context.Background()
	if err := c.Set(ctx, []byte("k"), []byte("value")); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 300; i++ {
				v, err := c.Get(ctx, []byte("k"))
				if err != nil {
					errs <- err
					return
				}
				if string(v.Bytes()) != "value" {
					v.Release()
					errs <- fmt.Errorf("get returned %q, want %q", v.Bytes(), "value")
					return
				}
				v.Release()
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
