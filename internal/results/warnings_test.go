package results

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// lognormal records n latencies around median ns with log spread sigma.
func lognormal(h *hdrhistogram.Histogram, r *rand.Rand, n int, median, sigma float64) {
	for range n {
		h.RecordValue(int64(median * math.Exp(sigma*r.NormFloat64())))
	}
}

func TestBimodalTwoModes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	h := NewHistogram()
	lognormal(h, r, 380, 62e3, 0.15)  // a fast path near 62µs
	lognormal(h, r, 550, 7.4e6, 0.25) // a retransmission timer near 7.4ms
	lognormal(h, r, 70, 1e6, 2)       // and a few anywhere
	w, ok := Bimodal(h)
	if !ok || w.Kind != WarnBimodal {
		t.Fatalf("two modes 120x apart: %+v, %v; want a bimodal warning", w, ok)
	}
	for _, want := range []string{"near 6", "near 7", "lower between them"} {
		if !strings.Contains(w.Message, want) {
			t.Errorf("message %q does not say %q", w.Message, want)
		}
	}
	// The shares are those of the modes: most of 38% and 55%.
	if !strings.Contains(w.Message, "% of operations near 6") || strings.Count(w.Message, "%") != 2 {
		t.Errorf("message %q: want the share of each mode", w.Message)
	}
}

// Unimodal distributions, narrow or wide, with or without a long tail,
// are not bimodal however many operations they hold.
func TestBimodalUnimodalNotFlagged(t *testing.T) {
	for _, n := range []int{200, 1000, 20000} {
		for _, sigma := range []float64{0.05, 0.2, 0.5, 1.0} {
			for seed := range uint64(10) {
				r := rand.New(rand.NewPCG(seed, uint64(n)))
				h := NewHistogram()
				lognormal(h, r, n, 20e3, sigma)
				if w, ok := Bimodal(h); ok {
					t.Fatalf("lognormal n=%d sigma=%g seed %d: %s", n, sigma, seed, w.Message)
				}
			}
		}
	}
	// A body with a Pareto tail: 5% of operations up to 1000 times slower.
	r := rand.New(rand.NewPCG(7, 7))
	h := NewHistogram()
	lognormal(h, r, 95000, 20e3, 0.2)
	for range 5000 {
		h.RecordValue(int64(20e3 * math.Min(math.Pow(1-r.Float64(), -1/1.2), 1000)))
	}
	if w, ok := Bimodal(h); ok {
		t.Errorf("long tail: %s", w.Message)
	}
}

// Below BimodalMinOps there is no verdict, even on two clear modes.
func TestBimodalTooFewOps(t *testing.T) {
	build := func(n int) *hdrhistogram.Histogram {
		r := rand.New(rand.NewPCG(3, 3))
		h := NewHistogram()
		lognormal(h, r, n/2, 50e3, 0.1)
		lognormal(h, r, n-n/2, 5e6, 0.1)
		return h
	}
	if w, ok := Bimodal(build(BimodalMinOps - 1)); ok {
		t.Errorf("%d ops: %s; want no verdict", BimodalMinOps-1, w.Message)
	}
	if _, ok := Bimodal(build(BimodalMinOps)); !ok {
		t.Errorf("%d ops of two modes: no warning", BimodalMinOps)
	}
	if _, ok := Bimodal(NewHistogram()); ok {
		t.Error("empty histogram flagged")
	}
}

func TestP50FarAboveMin(t *testing.T) {
	cell := func(mode string, conns, depth int, min, p50 int64) Cell {
		return Cell{Op: "get", Latency: Latency{Min: min, P50: p50}, Load: CellLoad{Mode: mode, Connections: conns, Depth: depth}}
	}
	for _, tc := range []struct {
		name string
		c    Cell
		want bool
	}{
		{"one in flight, p50 5x min", cell("closed", 1, 1, 10e3, 50e3), true},
		{"one in flight, p50 2x min", cell("closed", 1, 1, 10e3, 20e3), false},
		{"depth 4", cell("closed", 1, 4, 10e3, 50e3), false},
		{"two connections", cell("closed", 2, 1, 10e3, 50e3), false},
		{"open loop", cell("open", 1, 1, 10e3, 50e3), false},
		{"no operations", cell("closed", 1, 1, 0, 0), false},
	} {
		w, ok := P50FarAboveMin(tc.c)
		if ok != tc.want {
			t.Errorf("%s: %v (%q), want %v", tc.name, ok, w.Message, tc.want)
		}
		if ok && (w.Kind != WarnP50FarAboveMin || !strings.Contains(w.Message, "5.0×") || !strings.Contains(w.Message, "10µs")) {
			t.Errorf("%s: %+v: want the kind, the ratio and t_min", tc.name, w)
		}
	}
}

// intervals builds 1s interval histograms from start, counts[k] operations
// in interval k (none: the interval is absent, as bench leaves it), the
// last one cut short at the phase end.
func intervals(start time.Time, counts []int, last time.Duration) []*hdrhistogram.Histogram {
	var out []*hdrhistogram.Histogram
	for k, n := range counts {
		if n == 0 {
			continue
		}
		h := NewHistogram()
		for range n {
			h.RecordValue(20000)
		}
		s := start.UnixMilli() + int64(k)*1000
		h.SetStartTimeMs(s)
		h.SetEndTimeMs(s + 1000)
		if k == len(counts)-1 {
			h.SetEndTimeMs(s + last.Milliseconds())
		}
		out = append(out, h)
	}
	return out
}

func TestRateSwing(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 600e6, time.UTC)
	cell := func(counts []int) Cell {
		return Cell{Op: "get", IntervalNs: int64(time.Second), DurationNs: int64(len(counts)-1)*int64(time.Second) + int64(300*time.Millisecond),
			Load: CellLoad{Mode: "closed", Connections: 1, Depth: 1}}
	}
	for _, tc := range []struct {
		name   string
		counts []int // the last is the short interval
		want   string
	}{
		{"steady", []int{1000, 980, 1010, 995, 20}, ""},
		{"one slow second", []int{1000, 1000, 300, 1000, 1000, 20}, "interval 3 of 5 full 1s intervals ran 300 ops/s, 0.30× the median 1k ops/s"},
		{"a second with nothing done", []int{1000, 0, 1000, 1000, 20}, "interval 2 of 4"},
		{"only the short last interval is slow", []int{1000, 1000, 1000, 5}, ""},
		{"two full intervals", []int{1000, 100, 20}, ""},
		{"too few operations to tell", []int{40, 10, 40, 40, 5}, ""},
	} {
		c := cell(tc.counts)
		w, ok := RateSwing(c, start, intervals(start, tc.counts, 300*time.Millisecond))
		switch {
		case ok != (tc.want != ""):
			t.Errorf("%s: %v %q", tc.name, ok, w.Message)
		case ok && (w.Kind != WarnRateSwing || !strings.Contains(w.Message, tc.want)):
			t.Errorf("%s: %+v, want %q in the message", tc.name, w, tc.want)
		}
	}
	ramp := cell([]int{1000, 1000, 300, 1000, 20})
	ramp.Load.Mode, ramp.Load.RampRatesOps = "open", []float64{1000, 300, 1000}
	if w, ok := RateSwing(ramp, start, intervals(start, []int{1000, 1000, 300, 1000, 20}, 300*time.Millisecond)); ok {
		t.Errorf("a ramp changes its rate by design: %s", w.Message)
	}
}

func TestSiblingWarnings(t *testing.T) {
	cell := func(th int, protocol string, p50 int64) Cell {
		return Cell{Op: "get", ValueSize: 64, Threshold: th, Protocol: protocol, Count: 100, Latency: Latency{P50: p50}}
	}
	cells := []Cell{
		cell(1024, "eager", 7460e3), // the outlier
		cell(4096, "eager", 77e3),
		cell(16384, "eager", 46e3),
		cell(65536, "eager", 58e3),
		cell(0, "rendezvous", 900e3), // another protocol: no sibling of theirs
	}
	out := SiblingWarnings(cells)
	if len(out) != len(cells) {
		t.Fatalf("%d results for %d cells", len(out), len(cells))
	}
	if len(out[0]) != 1 || out[0][0].Kind != WarnDisagreesAcrossThresholds ||
		!strings.Contains(out[0][0].Message, "7.46ms, 129× above the median 58µs at thresholds 4KiB, 16KiB, 64KiB") {
		t.Errorf("outlier: %+v", out[0])
	}
	for i := 1; i < len(cells); i++ {
		if len(out[i]) != 0 {
			t.Errorf("%s: %+v", cells[i].Name(), out[i])
		}
	}
	// With two siblings, one outlier among them could move their median:
	// no verdict.
	if out := SiblingWarnings(cells[:3]); len(out[0])+len(out[1])+len(out[2]) != 0 {
		t.Errorf("three cells: %+v", out)
	}
	// A cell far below its siblings is flagged too.
	low := []Cell{cell(1024, "eager", 10e3), cell(4096, "eager", 77e3), cell(16384, "eager", 70e3), cell(65536, "eager", 80e3)}
	if out := SiblingWarnings(low); len(out[0]) != 1 || !strings.Contains(out[0][0].Message, "below") {
		t.Errorf("a cell 7.7x below: %+v", out[0])
	}
}

// AddWarnings replaces what a cell carried with what it now shows: two
// modes, and a median that falls between them and is known to neither
// (precision).
func TestAddWarningsReplaces(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	h := NewHistogram()
	lognormal(h, r, 500, 50e3, 0.1)
	lognormal(h, r, 500, 5e6, 0.1)
	enc, err := EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	c := Cell{Op: "get", Count: h.TotalCount(), Latency: Summarize(h), Histogram: enc,
		Load: CellLoad{Mode: "closed", Connections: 2, Depth: 2}, Warnings: []Warning{{Kind: "stale", Message: "from a rank"}}}
	cells := []CellLog{{Cell: c}}
	AddWarnings(cells)
	got := cells[0].Cell.Warnings
	if len(got) != 2 || got[0].Kind != WarnBimodal || got[1].Kind != WarnCheckPrefix+CheckPrecision {
		t.Errorf("warnings %+v, want bimodal and the p50's precision", got)
	}
}

// The adaptive policy's cells are judged on their op's rate, both
// protocols together: requests moving from one protocol to the other
// as the policy learns are no swing, a second in which neither moved any
// is.
func TestAddWarningsAdaptiveRate(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cell := func(proto string) Cell {
		return Cell{Op: "get", Protocol: proto, Threshold: AdaptiveThreshold, Policy: PolicyAdaptive, Distribution: "d",
			IntervalNs: int64(time.Second), DurationNs: int64(4*time.Second + 300*time.Millisecond),
			Load: CellLoad{Mode: "closed", Connections: 1, Depth: 1}}
	}
	for _, tc := range []struct {
		name        string
		eager, rdv  []int
		wantWarning bool
	}{
		{"a switch from rendezvous to eager", []int{10, 500, 1000, 1000, 20}, []int{1000, 500, 10, 10, 1}, false},
		{"a stall", []int{1000, 0, 1000, 1000, 20}, []int{10, 0, 10, 10, 1}, true},
	} {
		cells := []CellLog{
			{Cell: cell("eager"), Start: start, Intervals: intervals(start, tc.eager, 300*time.Millisecond)},
			{Cell: cell("rendezvous"), Start: start, Intervals: intervals(start, tc.rdv, 300*time.Millisecond)},
		}
		AddWarnings(cells)
		for _, c := range cells {
			swing := slices.ContainsFunc(c.Cell.Warnings, func(w Warning) bool { return w.Kind == WarnRateSwing })
			if swing != tc.wantWarning {
				t.Errorf("%s: %s warns %+v, want a rate swing %v", tc.name, c.Cell.Protocol, c.Cell.Warnings, tc.wantWarning)
			}
		}
	}
}
