package bench

import (
	"testing"

	"github.com/kvbench/kvbench/internal/sizegen"
)

func testLaw(t testing.TB) sizegen.Distribution {
	t.Helper()
	g, err := sizegen.NewWeighted([]sizegen.Weight{{Size: 64, Weight: 70}, {Size: 4096, Weight: 20}, {Size: 1 << 16, Weight: 10}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Drawing an operation's value size allocates nothing: the worker's
// source is reseeded in place.
func TestValueSizeZeroAllocs(t *testing.T) {
	s := newSizer(testLaw(t), 7)
	var key int64
	if n := testing.AllocsPerRun(1000, func() {
		key++
		_ = s.size(key, uint64(key)*3)
	}); n != 0 {
		t.Errorf("%v allocations per draw, want 0", n)
	}
}

// The harness's per-operation work stays allocation-free when each set
// draws its value's size, verifying or not.
func TestHarnessZeroAllocsDrawnSizes(t *testing.T) {
	for _, verify := range []bool{false, true} {
		w, base := overheadWorker(t, testKeys)
		law := testLaw(t)
		w.sizes, w.buf = newSizer(law, 1), make([]byte, law.Max())
		w.val = w.buf[:0]
		if verify {
			w.shard = newShard(int64(testKeys.Count), 0, 1, true)
		}
		w.runClosed(base, 1000, 0)
		if n := testing.AllocsPerRun(1000, func() { w.runClosed(base, 1, 0) }); n != 0 {
			t.Errorf("verify %v: %v allocations per operation, want 0", verify, n)
		}
	}
}

func BenchmarkValueSize(b *testing.B) {
	s := newSizer(testLaw(b), 7)
	b.ReportAllocs()
	for i := range b.N {
		_ = s.size(int64(i), uint64(i))
	}
}
