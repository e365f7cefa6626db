package rdmakv

import (
	"slices"
	"testing"
)

// A ring offered 10,000 samples a second for 20 s and strided at each of
// 16 judgments a window holds, at every judgment after its first second,
// between a quarter and all of its length within the window, spread over
// the window, where unstrided it would hold its last 13 ms.
func TestSampleRingSpansTheWindow(t *testing.T) {
	const window = 2000 // ms
	r := newSampleRing(128)
	var scratch []uint32
	for ms := uint32(0); ms < 20_000; ms++ {
		for range 10 {
			r.add(int64(ms)+1, ms) // the latency says when it was taken
		}
		if ms%(window/16) != 0 || ms == 0 {
			continue
		}
		r.stride(ms, window)
		if ms < 1000 {
			continue
		}
		scratch = r.recent(scratch, ms, window)
		if n := len(scratch); n < len(r.buf)/4 || n > len(r.buf) {
			t.Fatalf("at %d ms the window holds %d samples of a ring of %d (every %d)", ms, n, len(r.buf), r.every.Load())
		}
		if ms >= 2*window {
			oldest := slices.Min(scratch) - 1
			if span := ms - oldest; span < window/2 {
				t.Fatalf("at %d ms the window's samples span %d ms of its %d (every %d)", ms, span, window, r.every.Load())
			}
		}
	}
}
