package benchmetrics

import (
	"math"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/results"
)

// Bucket i of schema 3 holds (2^((i-1)/8), 2^(i/8)]: what lies just
// below its top belongs to it, what lies just above to the next.
func TestBucketBounds(t *testing.T) {
	for i := -80; i <= 80; i++ {
		top := math.Pow(2, float64(i)/8)
		if got := bucket(top * 0.999); got != i {
			t.Errorf("bucket(just below 2^(%d/8)) = %d, want %d", i, got, i)
		}
		if got := bucket(top * 1.001); got != i+1 {
			t.Errorf("bucket(just above 2^(%d/8)) = %d, want %d", i, got, i+1)
		}
	}
}

// An interval's latencies all land in the buckets, each near its value,
// and a measurement's failures exclude misses.
func TestOpStatsAdd(t *testing.T) {
	h := results.NewHistogram()
	for _, ns := range []int64{1_000, 1_000, 50_000, 2_000_000} {
		if err := h.RecordValue(ns); err != nil {
			t.Fatal(err)
		}
	}
	m := bench.Measurement{Count: 4, Hist: h}
	m.Errors[bench.KindNone], m.Errors[bench.KindNotFound], m.Errors[bench.KindTimeout] = 2, 1, 1
	s := newOpStats()
	s.addHist(h)
	s.addErrors(&m)
	if s.count != 4 || s.errors != 1 {
		t.Errorf("count %d errors %d, want 4 and 1 (a miss is no failure)", s.count, s.errors)
	}
	var n int64
	for i, c := range s.buckets {
		n += c
		lo, hi := math.Pow(2, float64(i-1)/8), math.Pow(2, float64(i)/8)
		if hi < 1e-6*0.99 || lo > 2e-3*1.01 {
			t.Errorf("bucket %d (%g, %g] is outside the recorded range", i, lo, hi)
		}
	}
	if n != 4 {
		t.Errorf("buckets hold %d latencies, want 4", n)
	}
	if want := 1e-6 + 1e-6 + 50e-6 + 2e-3; math.Abs(s.sum-want) > want*0.01 {
		t.Errorf("sum %g s, want about %g", s.sum, want)
	}
}
