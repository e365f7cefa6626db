package bench_test

import (
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/results"
)

// A measurement is judged on its own histogram and its intervals: here one
// in flight with a median 8 times its fastest operation, and a third
// second at a fifth of the others' rate.
func TestMeasurementWarnings(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	total := results.NewHistogram()
	var ivs []bench.Interval
	for k, n := range []int{1000, 1000, 200, 1000} {
		h := results.NewHistogram()
		h.RecordValue(10_000) // the fastest
		for range n - 1 {
			h.RecordValue(80_000)
		}
		total.Merge(h)
		s := start.UnixMilli() + int64(k)*1000
		ivs = append(ivs, bench.Interval{StartMs: s, EndMs: s + 1000, Encoded: encode(t, h)})
	}
	m := bench.Measurement{Threshold: 4096, ValueSize: 64, Op: bench.OpGet, Protocol: bench.Eager,
		Count: total.TotalCount(), Start: start, Duration: 4 * time.Second, Hist: total, Intervals: ivs,
		Load: results.CellLoad{Mode: "closed", Connections: 1, Depth: 1}}
	got := map[string]bool{}
	for _, w := range m.Warnings() {
		got[w.Kind] = true
	}
	if len(got) != 2 || !got[results.WarnP50FarAboveMin] || !got[results.WarnRateSwing] {
		t.Errorf("warnings %v, want p50_far_above_min and rate_swing", got)
	}
	m.Load.Depth = 4 // queueing behind each other is expected
	if ws := m.Warnings(); len(ws) != 1 || ws[0].Kind != results.WarnRateSwing {
		t.Errorf("at depth 4: %+v, want rate_swing alone", ws)
	}
	if ws := (&bench.Measurement{}).Warnings(); ws != nil {
		t.Errorf("a measurement without a histogram: %+v", ws)
	}
}

func encode(t *testing.T, h *hdrhistogram.Histogram) []byte {
	t.Helper()
	s, err := results.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(s)
}
