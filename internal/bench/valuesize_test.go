package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/sizegen"
	"github.com/kvbench/kvbench/internal/workload"
)

func testLaw(t testing.TB) sizegen.Distribution {
	t.Helper()
	g, err := sizegen.NewWeighted([]sizegen.Weight{{Size: 64, Weight: 70}, {Size: 4096, Weight: 20}, {Size: 1 << 16, Weight: 10}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Drawing an operation's value size allocates nothing, whatever the law:
// the worker's source is reseeded in place.
func TestValueSizeZeroAllocs(t *testing.T) {
	for _, l := range benchLaws(t) {
		s := newSizer(l.law, 7)
		var key int64
		if n := testing.AllocsPerRun(1000, func() {
			key++
			_ = s.size(key, uint64(key)*3)
		}); n != 0 {
			t.Errorf("%s: %v allocations per draw, want 0", l.name, n)
		}
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

// benchLaws are a law of each form a workload may give, as
// values.distribution would: a histogram of 64 buckets stands for a
// measured one.
func benchLaws(tb testing.TB) []namedLaw {
	tb.Helper()
	var hist strings.Builder
	for i := range 64 {
		fmt.Fprintf(&hist, "%d,%d\n", 64+i*1000, 1+i%7)
	}
	h, err := sizegen.ReadHistogram(strings.NewReader(hist.String()))
	if err != nil {
		tb.Fatal(err)
	}
	laws := []namedLaw{{"histogram", h}}
	for _, c := range []struct{ name, spec string }{
		{"weighted", "weighted: {64B: 70, 4KiB: 20, 64KiB: 10}"},
		{"uniform", "uniform: {min: 1KiB, max: 64KiB}"},
		{"gpd", "gpd: {scale: 214.476, shape: 0.348238}, max: 1MiB"},
		{"etc", "etc, max: 1MiB"},
	} {
		d, err := workload.NewDistribution(c.spec)
		if err != nil {
			tb.Fatal(err)
		}
		laws = append(laws, namedLaw{c.name, d.Law()})
	}
	return laws
}

type namedLaw struct {
	name string
	law  sizegen.Distribution
}

// BenchmarkValueSize is the cost of drawing one operation's value size
// through a worker's sizer, for each form of law.
func BenchmarkValueSize(b *testing.B) {
	for _, l := range benchLaws(b) {
		b.Run(l.name, func(b *testing.B) {
			s := newSizer(l.law, 7)
			b.ReportAllocs()
			for i := range b.N {
				_ = s.size(int64(i), uint64(i))
			}
		})
	}
}
