package results

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// shapedIntervals builds one full 1s interval histogram per entry of
// p50sUs, n operations each around that p50 (±10%, seeded), plus one
// operation of stall in every interval when stall > 0; then a short last
// interval.
func shapedIntervals(start time.Time, n int, p50sUs []float64, stall time.Duration) []*hdrhistogram.Histogram {
	r := rand.New(rand.NewPCG(1, 2))
	var out []*hdrhistogram.Histogram
	for k, us := range append(p50sUs, p50sUs[len(p50sUs)-1]) {
		h := NewHistogram()
		for range n {
			h.RecordValue(int64(us * 1000 * (0.9 + 0.2*r.Float64())))
		}
		if stall > 0 {
			h.RecordValue(stall.Nanoseconds())
		}
		s := start.UnixMilli() + int64(k)*1000
		h.SetStartTimeMs(s)
		h.SetEndTimeMs(s + 1000)
		out = append(out, h)
	}
	return out
}

// checkCell is a closed-loop cell of len(p50sUs) full 1s intervals and a
// 300ms last one, its histogram the intervals merged.
func checkCell(t *testing.T, intervals []*hdrhistogram.Histogram) Cell {
	t.Helper()
	all := NewHistogram()
	for _, h := range intervals {
		all.Merge(h)
	}
	enc, err := EncodeHistogram(all)
	if err != nil {
		t.Fatal(err)
	}
	return Cell{Op: "get", IntervalNs: int64(time.Second),
		DurationNs: int64(len(intervals)-1)*int64(time.Second) + int64(300*time.Millisecond),
		Load:       CellLoad{Mode: "closed", Connections: 1, Depth: 1}, Histogram: enc,
		Count: all.TotalCount(), Latency: Summarize(all)}
}

func failed(checks []Check) []string {
	var out []string
	for _, k := range checks {
		if !k.Pass {
			out = append(out, k.Method)
		}
	}
	return out
}

func TestCellChecksQuietCellPasses(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	iv := shapedIntervals(start, 2000, []float64{20, 20, 20, 20, 20, 20, 20, 20, 20, 20}, 0)
	checks := CellChecks(checkCell(t, iv), start, iv)
	var methods []string
	for _, k := range checks {
		methods = append(methods, k.Method)
	}
	want := []string{MethodTrendRate, MethodTrendP50, MethodIntervalMax, MethodOrderStatistics, MethodOrderStatistics}
	if !slices.Equal(methods, want) || len(failed(checks)) > 0 {
		t.Errorf("quiet cell: %+v, want %v all passed", checks, want)
	}
}

func TestCellChecksTrendFails(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// p50 rising 5%/s of 20µs, far above noise of ±10% per operation.
	var p50s []float64
	for k := range 10 {
		p50s = append(p50s, 20*(1+0.05*float64(k)))
	}
	iv := shapedIntervals(start, 2000, p50s, 0)
	checks := StationarityChecks(checkCell(t, iv), start, iv)
	if got := failed(checks); !slices.Equal(got, []string{MethodTrendP50}) {
		t.Fatalf("rising p50 failed %v, want only the p50 trend: %+v", got, checks)
	}
	if k := checks[1]; *k.P >= StationarityAlpha || !strings.Contains(k.Figure, "trend +4.") {
		t.Errorf("p50 trend check %+v", k)
	}
}

func TestCellChecksRecurringStallFails(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	flat := []float64{20, 20, 20, 20, 20, 20, 20, 20}
	iv := shapedIntervals(start, 2000, flat, 200*time.Millisecond)
	checks := StationarityChecks(checkCell(t, iv), start, iv)
	if got := failed(checks); !slices.Equal(got, []string{MethodIntervalMax}) {
		t.Fatalf("a 200ms stop every second failed %v, want the interval max: %+v", got, checks)
	}
	// One stall in eight seconds is a tail event, not a state.
	once := shapedIntervals(start, 2000, flat, 0)
	once[3].RecordValue((200 * time.Millisecond).Nanoseconds())
	if got := failed(StationarityChecks(checkCell(t, once), start, once)); len(got) > 0 {
		t.Errorf("one stall failed %v", got)
	}
}

// An interval with nothing done is a stall in a busy cell, and chance in
// a sparse one: a rare size's rendezvous, a few operations in a cell of
// eight seconds, passes.
func TestCellChecksEmptyIntervals(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	flat := []float64{20, 20, 20, 20, 20, 20, 20, 20}
	drop := func(iv []*hdrhistogram.Histogram, ks ...int) []*hdrhistogram.Histogram {
		var out []*hdrhistogram.Histogram
		for k, h := range iv {
			if !slices.Contains(ks, k) {
				out = append(out, h)
			}
		}
		return out
	}
	busy := drop(shapedIntervals(start, 2000, flat, 0), 1, 3, 5)
	if got := failed(StationarityChecks(checkCell(t, busy), start, busy)); !slices.Contains(got, MethodIntervalMax) {
		t.Errorf("3 of 8 busy intervals empty failed %v, want the interval max", got)
	}
	sparse := drop(shapedIntervals(start, 2, flat, 0), 0, 1, 3, 4, 6)
	checks := StationarityChecks(checkCell(t, sparse), start, sparse)
	if got := failed(checks); len(got) > 0 {
		t.Errorf("5 of 8 intervals empty in a cell of 2 an interval failed %v: %+v", got, checks)
	}
}

func TestCellChecksAbsentWithoutEnoughIntervals(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	iv := shapedIntervals(start, 2000, []float64{20, 40, 60, 80}, 0)
	if checks := StationarityChecks(checkCell(t, iv), start, iv); checks != nil {
		t.Errorf("four intervals: %+v, want no check", checks)
	}
	if checks := StationarityChecks(checkCell(t, iv), start, nil); checks != nil {
		t.Errorf("no interval log: %+v, want no check", checks)
	}
}

func TestAddWarningsRecomputesChecks(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	iv := shapedIntervals(start, 2000, []float64{20, 20, 20, 20, 20, 20}, 200*time.Millisecond)
	c := checkCell(t, iv)
	c.Checks = []Check{{Name: CheckStationarity, Method: "stale", Pass: false}, {Name: CheckHost, Method: "load", Pass: true}}
	cells := []CellLog{{Cell: c, Start: start, Intervals: iv}}
	AddWarnings(cells)
	got := cells[0].Cell
	if slices.ContainsFunc(got.Checks, func(k Check) bool { return k.Method == "stale" }) ||
		!slices.ContainsFunc(got.Checks, func(k Check) bool { return k.Name == CheckHost }) {
		t.Errorf("checks %+v: want the stale stationarity check gone, the host check kept", got.Checks)
	}
	if got.Trusted() || !slices.Contains(kinds(got), WarnCheckPrefix+CheckStationarity) {
		t.Errorf("stalled cell: trusted %v, warnings %+v", got.Trusted(), got.Warnings)
	}
}
