package bench

import (
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

func TestCollectorMergesAndFinalizes(t *testing.T) {
	c := newCollector(2, 1_000_000)
	r0 := &recorder{sink: c, worker: 0}
	r1 := &recorder{sink: c, worker: 1}
	sec := intervalNs
	// worker 0: ops ending in intervals 0, 1, 1, 2; worker 1: 0 and 2.
	r0.record(OpGet, Eager, 100, KindNone, 0)
	r1.record(OpGet, Eager, 200, KindNone, sec/2)
	r0.record(OpGet, Eager, 300, KindNone, sec)
	r0.record(OpGet, Eager, 300, KindNone, sec+5)
	if len(c.acc) != 1 {
		t.Errorf("%d intervals pending after worker 0 moved on; want 1 (interval 0 waits for worker 1)", len(c.acc))
	}
	r1.record(OpGet, Eager, 400, KindNone, 2*sec)
	if _, ok := c.acc[0]; ok {
		t.Error("interval 0 still pending after both workers moved past it")
	}
	r0.record(OpGet, Eager, 500, KindNone, 2*sec+1)
	r0.finish()
	r1.finish()
	c.end(1_000_000 + 2500)
	hs, err := DecodeIntervals(c.intervals(OpGet, Eager))
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{2, 2, 2}
	if len(hs) != len(want) {
		t.Fatalf("%d intervals, want %d", len(hs), len(want))
	}
	for i, h := range hs {
		if h.TotalCount() != want[i] || h.StartTimeMs() != 1_000_000+int64(i)*1000 {
			t.Errorf("interval %d: count %d start %d", i, h.TotalCount(), h.StartTimeMs())
		}
	}
	if end := hs[2].EndTimeMs(); end != 1_000_000+2500 {
		t.Errorf("last interval ends at %d, want the phase end", end)
	}
	if r0.total[OpGet][Eager].TotalCount() != 4 || r1.total[OpGet][Eager].TotalCount() != 2 {
		t.Error("per-worker totals wrong")
	}
}

// heard records the intervals an IntervalObserver hears, by count.
type heard struct {
	ObserverFunc
	counts []int64
}

func (h *heard) Interval(op Op, p Protocol, hist *hdrhistogram.Histogram) {
	h.counts = append(h.counts, hist.TotalCount())
}

// The hook hears each interval once, as soon as every worker moved past
// it, not only at the phase end.
func TestCollectorHearsIntervalsAsFinal(t *testing.T) {
	c := newCollector(1, 1_000_000)
	h := &heard{ObserverFunc: func(Status) {}}
	c.hear = h
	r := &recorder{sink: c}
	r.record(OpGet, Eager, 100, KindNone, 0)
	r.record(OpGet, Eager, 100, KindNone, 1)
	r.record(OpGet, Eager, 100, KindNone, intervalNs)
	if len(h.counts) != 1 || h.counts[0] != 2 {
		t.Errorf("after interval 0 closed heard %v, want [2]", h.counts)
	}
	r.finish()
	c.end(1_000_000 + 1500)
	if len(h.counts) != 2 || h.counts[1] != 1 {
		t.Errorf("at the end heard %v, want [2 1]", h.counts)
	}
}
