package bench

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/results"
)

// Whatever is offered, the sample stays within its buffer and holds
// runs of consecutive values spread evenly over what was offered.
func TestRunsKeepEvenRuns(t *testing.T) {
	s := newRuns[int64](4 * runLen)
	const offered = 100 * runLen
	for v := range int64(offered) {
		if s.next() {
			s.put(v)
		}
	}
	if cap(s.buf) != 4*runLen || len(s.buf) < 2*runLen {
		t.Fatalf("%d kept of capacity %d", len(s.buf), cap(s.buf))
	}
	for i, v := range s.buf {
		run, at := int64(i/runLen), int64(i%runLen)
		if v != run*s.every+at {
			t.Fatalf("value %d at %d: want run %d starting at %d", v, i, run, run*s.every)
		}
	}
	if last := s.buf[len(s.buf)-1]; last < offered/2 {
		t.Errorf("the last kept value is %d of %d: the runs do not span the phase", last, offered)
	}
	pairs := 0
	s.pairs(func(a, b int64) bool {
		if b != a+1 {
			t.Errorf("pair %d, %d not consecutive", a, b)
		}
		pairs++
		return true
	})
	if want := len(s.buf) - len(s.buf)/runLen; pairs != want {
		t.Errorf("%d pairs, want %d", pairs, want)
	}
}

// issuesOn is a worker whose sample holds operations intended at offs
// and issued at ats.
func issuesOn(offs, ats []int64) *worker {
	r := &recorder{issues: newRuns[issued](len(offs))}
	for i := range offs {
		if r.issues.next() {
			r.issues.put(issued{offs[i], ats[i]})
		}
	}
	return &worker{rec: r}
}

// A schedule that is not of even intervals is judged by KS: issued on
// it passes, issued at even intervals of the same mean fails.
func TestInterarrivalKS(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var offs, even []int64
	var off float64
	for i := range 1000 {
		off += r.ExpFloat64() * 1e5
		offs, even = append(offs, int64(off)), append(even, int64(i)*1e5)
	}
	pacer := PacerFunc(func(int64) (time.Duration, bool) { return 0, true })
	k, ok := interarrival([]*worker{issuesOn(offs, offs)}, pacer)
	if !ok || !k.Pass || k.Method != "kolmogorov-smirnov" || k.Statistic != 0 {
		t.Errorf("issued on the schedule: %+v", k)
	}
	k, _ = interarrival([]*worker{issuesOn(offs, even)}, pacer)
	if k.Pass || k.Statistic < 0.2 || k.P == nil || *k.P > 1e-6 {
		t.Errorf("issued evenly against an exponential schedule: %+v", k)
	}
	if k.Name != results.CheckInterarrival || math.IsNaN(k.Statistic) {
		t.Errorf("check %+v", k)
	}
}
