// Package figuretest gives the tests of the packages that read cell
// figures (package figure) a sample of every declared figure, and a
// figure declared nowhere else, to show a figure flows through them with
// no edit of theirs.
package figuretest

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
)

// Samples set a plausible value of each declared figure in a cell, by the
// figure's name. A figure declared in package figure needs one here: the
// readers' tests take every declared figure through them, and Fill fails
// for a figure without one.
var Samples = map[string]func(t testing.TB, c *results.Cell){
	"cpu": func(_ testing.TB, c *results.Cell) {
		c.CPU = results.NewCellCPU(results.CPUScopeClient, max(c.Count, 1)*2,
			results.CPUTime{UserNs: 4e6, SysNs: 1e6}, &results.CPUTime{UserNs: 2e6, SysNs: 5e5})
	},
	"phases": func(t testing.TB, c *results.Cell) {
		c.Phases = map[string]results.OpPhase{"client": phase(t, 400), "network": phase(t, 1500), "server": phase(t, 300)}
	},
	"issue_delay_ns": func(_ testing.TB, c *results.Cell) {
		c.IssueDelay = &results.Latency{Min: 1, Mean: 40, P50: 30, P90: 60, P99: 90, P999: 120, P9999: 150, Max: 200}
	},
	"hw_counters": func(_ testing.TB, c *results.Cell) {
		c.HWCounters = map[string]uint64{"sent_pkts": 1000, "rcvd_pkts": 990, "duplicate_request": 0}
	},
	"credit_waits": func(_ testing.TB, c *results.Cell) {
		w := uint64(7)
		c.CreditWaits = &w
	},
	"measure_end": func(_ testing.TB, c *results.Cell) {
		c.WarmupEnd = &results.PhaseEnd{Reason: results.EndStable, DurationNs: 8e9, Until: true}
		c.MeasureEnd = &results.PhaseEnd{Reason: results.EndPrecision, DurationNs: 3e9, Until: true, CIHalfWidth: 0.04}
	},
	"receive_memory": func(_ testing.TB, c *results.Cell) {
		c.ReceiveMemory = &results.ReceiveMemory{Server: 4 << 20, Client: 212 << 10}
	},
	"size_classes": func(t testing.TB, c *results.Cell) {
		small, large := phase(t, 2000), phase(t, 9000)
		c.SizeClasses = []results.SizeClass{
			{Class: 64, Count: small.Count, Bytes: 6400, P50: small.P50, P99: small.P99, Histogram: small.Histogram},
			{Class: 1 << 20, Count: large.Count, Bytes: 100 << 20, P50: large.P50, P99: large.P99, Histogram: large.Histogram},
		}
	},
	"sizes": func(_ testing.TB, c *results.Cell) {
		c.Sizes = &results.SizeMix{Classes: map[int64]int64{64: 100, 1 << 20: 100}, Law: map[int64]float64{64: 0.5, 1 << 20: 0.5},
			Protocols: map[string]results.ProtocolShare{"eager": {Count: 100, Bytes: 6400}, "rendezvous": {Count: 100, Bytes: 100 << 20}}}
		c.Sizes.SetShares()
	},
	"adaptive": func(_ testing.TB, c *results.Cell) {
		c.Adaptive = &results.AdaptiveTimeline{IntervalNs: 1e9, StartThreshold: 4096, Thresholds: []int64{4096, 1024, 1024},
			Classes: []results.AdaptiveClass{
				{Lower: 64, Upper: 128, Eager: []uint64{90, 95, 98}, Rendezvous: []uint64{10, 5, 2}},
				{Lower: 2048, Upper: 4096, Eager: []uint64{40, 3, 1}, Rendezvous: []uint64{2, 50, 60}, Switches: 1},
			}}
	},
}

// phase is a phase of 100 operations around ns nanoseconds, with its
// histogram.
func phase(t testing.TB, ns int64) results.OpPhase {
	h := results.NewHistogram()
	r := rand.New(rand.NewPCG(uint64(ns), 1))
	for range 100 {
		if err := h.RecordValue(ns/2 + r.Int64N(ns)); err != nil {
			t.Fatal(err)
		}
	}
	enc, err := results.EncodeHistogram(h)
	if err != nil {
		t.Fatal(err)
	}
	return results.OpPhase{Count: h.TotalCount(), P50: h.ValueAtQuantile(50), P90: h.ValueAtQuantile(90),
		P99: h.ValueAtQuantile(99), Max: h.Max(), Histogram: enc}
}

// Fill gives c every declared figure (Samples).
func Fill(t testing.TB, c *results.Cell) {
	t.Helper()
	for _, f := range figure.All() {
		fill, ok := Samples[f.Name]
		if !ok {
			t.Fatalf("figure %s has no sample in figuretest.Samples", f.Name)
		}
		fill(t, c)
	}
}

// FillRun gives every cell of run every declared figure.
func FillRun(t testing.TB, run *results.Run) {
	t.Helper()
	for i := range run.Cells {
		Fill(t, &run.Cells[i])
	}
}

// Fake is a figure declared by a test alone (Register): "fake_ticks", a
// cell's count of ticks, which no harness measures. It borrows the cell's
// IntervalNs, which nothing else merges, prints or compares. Its ranks
// sum, and a cell some rank lacks it in loses it with a warning; compare
// tests it (metric "fake"); report prints it in a column ("fake"), a CSV
// column ("fake_ticks"), a header note and the json rows; plot draws it
// against value size.
func Fake() figure.Figure {
	return figure.Figure{
		Name:  FakeName,
		Unit:  "ticks",
		Has:   func(c results.Cell) bool { return c.IntervalNs > 0 },
		Merge: figure.Merge{New: func() figure.Merger { return &fakeSum{} }, Warn: fakeWarn},
		Compare: &figure.Compare{Tested: true, Names: []string{"fake"}, Values: func(as, bs []results.Cell) ([]figure.Values, string) {
			for _, c := range append(as[:len(as):len(as)], bs...) {
				if c.IntervalNs <= 0 {
					return nil, ""
				}
			}
			return []figure.Values{figure.Each("fake", as, bs, ticks)}, ""
		}},
		Report: figure.Report{
			Columns: []figure.Column{{Head: "fake", Summary: "fake[ticks]", Text: func(c results.Cell, num func(float64) string) string { return num(ticks(c)) }}},
			CSV:     []figure.CSVColumn{{Head: FakeName, Text: func(c results.Cell) string { return strconv.FormatInt(c.IntervalNs, 10) }}},
			Note:    func([]results.Cell) string { return FakeNote },
			JSON:    func(c results.Cell) any { return c.IntervalNs },
		},
		Plot: figure.Lines{Title: "fake ticks", Series: []figure.Series{{Name: "ticks", Value: func(c results.Cell) (float64, bool) { return ticks(c), true }}}},
	}
}

// FakeName is Fake's name; FakeNote its note in report's header.
const (
	FakeName = "fake_ticks"
	FakeNote = "ticks nobody measured"
)

func ticks(c results.Cell) float64 { return float64(c.IntervalNs) }

type fakeSum struct {
	ranks, lacking int
	n              int64
}

func (s *fakeSum) Add(_ *results.Run, c results.Cell) error {
	s.ranks++
	if c.IntervalNs <= 0 {
		s.lacking++
	}
	s.n += c.IntervalNs
	return nil
}

func (s *fakeSum) Put(c *results.Cell, _ figure.Job) ([]string, error) {
	c.IntervalNs = s.n
	if s.lacking > 0 && s.lacking < s.ranks {
		c.IntervalNs = 0
		return []string{"lacking"}, nil
	}
	return nil, nil
}

func fakeWarn(issues map[string][]string) []string {
	return []string{"cells " + strings.Join(issues["lacking"], ", ") + ": some rank counted no fake ticks"}
}
