//go:build linux && cgo

package verbs

import (
	"math/rand/v2"
	"testing"
)

func TestRingBytes(t *testing.T) {
	for _, c := range []struct{ n, size, largest, want int }{
		{256, 64<<10 + 64, 0, 1 << 20}, // a server's default: not 16 MiB
		{256, 4 << 10, 0, 1 << 20},
		{136, 4<<10 + 64, 1024 + 60, 136 * (4<<10 + 64)}, // a default client: all it needs
		{8, 16 << 20, 0, 4 * 16 << 20},
		{10, 92, 1024 + 60, 1024 + 60}, // threshold 0: room for one request with the longest key
	} {
		if got := ringBytes(c.n, c.size, c.largest); got != c.want {
			t.Errorf("ringBytes(%d, %d, %d) = %d, want %d", c.n, c.size, c.largest, got, c.want)
		}
	}
}

// post reserves and posts an n-byte message, failing the test when full.
func post(t *testing.T, r *sendRing, n int) (off, seq uint64, sig bool) {
	t.Helper()
	off, seq, sig, ok := r.reserve(n)
	if !ok {
		t.Fatalf("ring full for %d bytes (head %d, tail %d)", n, r.head, r.tail.Load())
	}
	if off+uint64(n) > r.size {
		t.Fatalf("message at %d+%d runs past the %d-byte ring", off, n, r.size)
	}
	r.posted(sig)
	return off, seq, sig
}

// TestSendRingBytes: messages go back to back, never wrap, and a full
// ring refuses until the completion of the oldest frees its bytes.
func TestSendRingBytes(t *testing.T) {
	r := newSendRing(1000, 100)
	for i, want := range []uint64{0, 300, 600} {
		if off, seq, _ := post(t, r, 300); off != want || seq != uint64(i) {
			t.Fatalf("message %d at %d (seq %d), want %d", i, off, seq, want)
		}
	}
	if _, _, _, ok := r.reserve(200); ok {
		t.Fatal("a 200-byte message fit where only 100 bytes are left before the end and none after")
	}
	if off, _, _ := post(t, r, 100); off != 900 {
		t.Fatalf("a message that fits the end went to %d", off)
	}
	r.done(0) // frees [0, 300)
	off, _, _ := post(t, r, 250)
	if off != 0 {
		t.Fatalf("after wrapping, a message went to %d, want 0", off)
	}
	if _, _, _, ok := r.reserve(100); ok {
		t.Fatal("overlapped bytes still in flight")
	}
	r.done(3)
	if off, _, _ := post(t, r, 700); off != 250 {
		t.Fatalf("with all earlier messages done a 700-byte one went to %d, want 250", off)
	}
}

// TestSendRingSlots: at most slots messages are in flight, whatever their
// size.
func TestSendRingSlots(t *testing.T) {
	r := newSendRing(1<<20, 8)
	for range 8 {
		post(t, r, 1)
	}
	if _, _, _, ok := r.reserve(1); ok {
		t.Fatal("a ninth message fit in 8 slots")
	}
	r.done(3)
	for range 4 {
		post(t, r, 1)
	}
	if _, _, _, ok := r.reserve(1); ok {
		t.Fatal("slots freed twice")
	}
}

// TestSendRingSignals: whenever the ring is full, by count or by bytes, a
// signaled message is in flight, or no completion would ever free it.
func TestSendRingSignals(t *testing.T) {
	for _, size := range []int{1, 64, 1000, 4096} {
		r := newSendRing(16384, 256)
		signaled := map[uint64]bool{}
		for range 10000 {
			off, seq, sig, ok := r.reserve(size)
			if !ok {
				var last uint64
				found := false
				for s := r.tail.Load(); s < r.head; s++ {
					if signaled[s] {
						found, last = true, s
					}
				}
				if !found {
					t.Fatalf("size %d: ring full with messages %d..%d and none signaled", size, r.tail.Load(), r.head-1)
				}
				r.done(last)
				continue
			}
			_ = off
			signaled[seq] = sig
			r.posted(sig)
		}
	}
}

// TestSendRingRemainders: the offsets, slots and periodic signals the
// ring keeps as counters are the positions' remainders, whatever the
// sizes and however the ring wraps.
func TestSendRingRemainders(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct{ size, slots, maxMsg int }{{1000, 7, 300}, {4096, 64, 4096}, {1 << 20, 513, 70000}} {
		r := newSendRing(c.size, c.slots)
		every := uint64(max(1, c.slots/4))
		for range 20000 {
			n := rng.IntN(c.maxMsg + 1)
			if rng.IntN(4) == 0 {
				n = 0
			}
			pos, lastSig := r.pos, r.lastSig
			off, seq, sig, ok := r.reserve(n)
			if !ok {
				r.done(r.head - 1)
				continue
			}
			want := pos % uint64(c.size)
			if want+uint64(n) > uint64(c.size) {
				want = 0
			}
			if off != want {
				t.Fatalf("size %d: %d-byte message %d at %d, want %d", c.size, n, seq, off, want)
			}
			end := pos - pos%uint64(c.size) + want + uint64(n)
			if want == 0 && pos%uint64(c.size) != 0 {
				end += uint64(c.size)
			}
			if wantSig := seq%every == every-1 || end-lastSig >= uint64(c.size)/4; sig != wantSig {
				t.Fatalf("size %d: message %d signaled %v, want %v", c.size, seq, sig, wantSig)
			}
			r.posted(sig)
			if got := &r.ends[seq%uint64(c.slots)]; got.Load() != r.pos {
				t.Fatalf("size %d: message %d's end not at slot %d", c.size, seq, seq%uint64(c.slots))
			}
			if rng.IntN(3) == 0 {
				r.done(seq)
			}
		}
	}
}
