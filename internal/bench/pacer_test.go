package bench

import (
	"math"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/workload"
)

var testKeys = workload.Keys{Count: 10000, Size: 16, Distribution: "zipfian", ZipfianConstant: 0.99}

func TestConstantPacer(t *testing.T) {
	p := ConstantPacer{Rate: 4000}
	for n, want := range map[int64]time.Duration{0: 0, 1: 250 * time.Microsecond, 4000: time.Second} {
		if got, ok := p.Offset(n); !ok || got != want {
			t.Errorf("Offset(%d) = %v, %v; want %v", n, got, ok, want)
		}
	}
}

func TestRampPacer(t *testing.T) {
	p, err := NewRampPacer([]float64{100, 200, 300}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if p.Duration() != 3*time.Second {
		t.Errorf("duration %v, want 3s", p.Duration())
	}
	cases := []struct {
		n    int64
		want time.Duration
		ok   bool
	}{
		{0, 0, true},
		{99, 990 * time.Millisecond, true},
		{100, time.Second, true}, // first op of the 200/s step
		{150, 1250 * time.Millisecond, true},
		{300, 2 * time.Second, true},
		{599, 2*time.Second + 299*time.Second/300, true},
		{600, 0, false}, // 100+200+300 ops scheduled in all
	}
	for _, c := range cases {
		got, ok := p.Offset(c.n)
		if ok != c.ok || (ok && (got-c.want).Abs() > time.Microsecond) {
			t.Errorf("Offset(%d) = %v, %v; want %v, %v", c.n, got, ok, c.want, c.ok)
		}
	}
	// A zero-rate step schedules nothing: the next op starts with the step
	// after it.
	z, err := NewRampPacer([]float64{10, 0, 10}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := z.Offset(10); got != 2*time.Second {
		t.Errorf("after a zero step: Offset(10) = %v, want 2s", got)
	}
	for _, bad := range [][]float64{nil, {-1}, {math.NaN()}} {
		if _, err := NewRampPacer(bad, time.Second); err == nil {
			t.Errorf("NewRampPacer(%v) accepted", bad)
		}
	}
	if _, err := NewRampPacer([]float64{1}, 0); err == nil {
		t.Error("zero step duration accepted")
	}
}

// The target rate is the running step's, the last one's past the end, and
// none without a pacer.
func TestTargetRate(t *testing.T) {
	p, err := NewRampPacer([]float64{100, 200, 300}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		pacer Pacer
		d     time.Duration
		want  float64
	}{
		{p, 0, 100}, {p, 999 * time.Millisecond, 100}, {p, time.Second, 200},
		{p, 2500 * time.Millisecond, 300}, {p, time.Minute, 300},
		{ConstantPacer{Rate: 50}, time.Hour, 50}, {nil, time.Second, 0},
	} {
		if got := targetRate(c.pacer, c.d); got != c.want {
			t.Errorf("targetRate(%T, %v) = %v, want %v", c.pacer, c.d, got, c.want)
		}
	}
}

func TestOwnKeyStaysInShard(t *testing.T) {
	for _, keys := range []int64{5, 7, 100} {
		for workers := 1; workers <= 5; workers++ {
			for w := range workers {
				for idx := range keys {
					k := ownKey(idx, keys, w, workers)
					if k < 0 || k >= keys || int(k%int64(workers)) != w {
						t.Fatalf("ownKey(%d, %d, %d, %d) = %d", idx, keys, w, workers, k)
					}
				}
			}
		}
	}
}
