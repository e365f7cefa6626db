package results

import (
	"math"
	"testing"
	"time"
)

// wholeCell is a cell of a mixed run's threshold whose n operations each
// took ns nanoseconds, over one second.
func wholeCell(t *testing.T, op, proto string, threshold int, n, ns int64) Cell {
	t.Helper()
	h := NewHistogram()
	if err := h.RecordValues(ns, n); err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return Cell{Op: op, Protocol: proto, Threshold: threshold, ValueSize: 5000, Distribution: "weighted: {64B: 1, 8KiB: 1}",
		Store: "rdmakv", Count: n, DurationNs: int64(time.Second), ThroughputOps: float64(n), ThroughputBytes: float64(n * 100),
		Latency: Summarize(h), Histogram: enc, ReceiveMemory: &ReceiveMemory{Server: int64(threshold) * 10, Client: int64(threshold)}}
}

// A threshold's whole workload merges its ops' and protocols' histograms
// and sums their operations over the phase; fixed-size cells have none,
// and a threshold with a cell that lost its histogram has none either.
func TestWholeCells(t *testing.T) {
	cells := []Cell{
		wholeCell(t, "get", "eager", 1024, 600, 20_000),
		wholeCell(t, "get", "rendezvous", 1024, 300, 100_000),
		wholeCell(t, "set", "eager", 1024, 100, 30_000),
		wholeCell(t, "get", "eager", 8192, 900, 25_000),
		{Op: "get", Protocol: "eager", Threshold: 4096, ValueSize: 64, Count: 10, Histogram: "x"}, // fixed size
		wholeCell(t, "get", "eager", 65536, 900, 25_000),
	}
	cells[len(cells)-1].Histogram = ""
	ws, err := WholeCells(cells)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 {
		t.Fatalf("%d whole cells, want 2 (thresholds 1KiB, 8KiB): %+v", len(ws), ws)
	}
	w := ws[0]
	if w.Op != Whole || w.Protocol != Whole || w.Threshold != 1024 || w.Count != 1000 {
		t.Errorf("whole cell %s count %d, want all/.../t=1KiB/all of 1000", w.Name(), w.Count)
	}
	if w.ThroughputOps != 1000 || math.Abs(w.ThroughputBytes-100_000) > 1e-6 {
		t.Errorf("rates %g ops/s, %g B/s, want 1000 and 100000", w.ThroughputOps, w.ThroughputBytes)
	}
	h, err := CellHistogram(w)
	if err != nil || h.TotalCount() != 1000 {
		t.Fatalf("merged histogram: %v, %v", h, err)
	}
	// 600 of 1000 at 20µs, 100 at 30µs, 300 at 100µs.
	if p50, p99 := w.Latency.P50, w.Latency.P99; p50 < 19_900 || p50 > 20_100 || p99 < 99_000 || p99 > 101_000 {
		t.Errorf("p50 %d, p99 %d, want about 20µs and 100µs", p50, p99)
	}
	if w.ReceiveMemory == nil || w.ReceiveMemory.Server != 10240 {
		t.Errorf("receive memory %+v, want the threshold's", w.ReceiveMemory)
	}
	if ws[1].Threshold != 8192 || ws[1].Count != 900 {
		t.Errorf("second whole cell %s of %d", ws[1].Name(), ws[1].Count)
	}
	cells[0].Histogram = "not a histogram"
	if _, err := WholeCells(cells); err == nil {
		t.Error("a broken histogram: no error")
	}
}

// A whole cell's checks are its parts' merged, but its precision is its
// own: a part of six operations cannot bound its p50, the whole of a
// thousand can; a part that failed another check fails the whole.
func TestWholeCellChecks(t *testing.T) {
	spread := func(c Cell, n int64) Cell {
		h := NewHistogram()
		for i := range n {
			_ = h.RecordValue(20_000 + 10*(i%100))
		}
		c.Histogram, _ = EncodeHistogram(h)
		c.Latency, c.Count = Summarize(h), n
		return c
	}
	common := spread(wholeCell(t, "get", "eager", 1024, 1, 1), 994)
	rare := spread(wholeCell(t, "get", "rendezvous", 1024, 1, 1), 6)
	rare.Checks = PrecisionChecks(rare)
	if TrustedChecks(rare.Checks, false) {
		t.Fatalf("a part of 6 operations passed precision: %+v", rare.Checks)
	}
	ws, err := WholeCells([]Cell{common, rare})
	if err != nil {
		t.Fatal(err)
	}
	if w := ws[0]; !w.TrustedMedian() || len(w.Checks) != 2 {
		t.Errorf("whole of 1000 operations: checks %+v, want its own precision, passed", w.Checks)
	}
	rare.Checks = append(rare.Checks, Check{Name: CheckStationarity, Method: "mann-kendall", Pass: false})
	ws, err = WholeCells([]Cell{common, rare})
	if err != nil {
		t.Fatal(err)
	}
	if w := ws[0]; w.TrustedMedian() {
		t.Errorf("a part failed stationarity, the whole passed: %+v", w.Checks)
	}
}
