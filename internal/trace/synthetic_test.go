package trace_test

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/internal/trace/synth"
)

const shipped = "../../workloads/traces/twitter-synthetic.csv.zst"

// The shipped trace is what the generator makes: go generate
// ./internal/trace/synth rewrites it.
func TestShippedTraceIsTheGenerators(t *testing.T) {
	f, err := os.ReadFile(shipped)
	if err != nil {
		t.Fatal(err)
	}
	if len(f) >= 200<<10 {
		t.Errorf("%s is %d bytes, keep it under 200 KiB", shipped, len(f))
	}
	dec, err := zstd.NewReader(bytes.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	got, err := io.ReadAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := synth.Twitter(&want, synth.Default); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("%s differs from what internal/trace/synth makes: run go generate ./internal/trace/synth", shipped)
	}
}

// Stats on the shipped trace give back what the generator put in it.
func TestStatsReproduceTheGenerator(t *testing.T) {
	want, err := synth.Twitter(io.Discard, synth.Default)
	if err != nil {
		t.Fatal(err)
	}
	s, err := trace.Stats(shipped, trace.Twitter)
	if err != nil {
		t.Fatal(err)
	}
	if s.Problems != 0 {
		t.Fatalf("%d problems: %s", s.Problems, s.FirstProblem)
	}
	if s.Requests != want.Requests {
		t.Errorf("requests %d, want %d", s.Requests, want.Requests)
	}
	if got := (trace.OpCounts{Get: want.Get, Set: want.Set, Delete: want.Delete}); s.Ops != got {
		t.Errorf("ops %+v, want %+v", s.Ops, got)
	}
	// Every Twitter operation appears, so every one was mapped.
	for _, op := range synth.Mix {
		if want.Ops[op.Name] == 0 {
			t.Errorf("the synthetic trace has no %s", op.Name)
		}
	}

	per := slices.Clone(want.PerSecond)
	slices.Sort(per)
	r := s.Rate
	if r.Seconds != int64(len(per)) || r.Min != per[0] || r.Max != per[len(per)-1] {
		t.Errorf("rate: %d seconds, min %d, max %d; want %d, %d, %d", r.Seconds, r.Min, r.Max, len(per), per[0], per[len(per)-1])
	}
	// The median of 60: the histogram's is one of the middle two.
	if r.Median != per[len(per)/2-1] && r.Median != per[len(per)/2] {
		t.Errorf("median %d, want %d or %d", r.Median, per[len(per)/2-1], per[len(per)/2])
	}
	if r.IntervalS != 1 || len(r.Series) != len(per) {
		t.Fatalf("series of %d points at %d s, want %d at 1 s", len(r.Series), r.IntervalS, len(per))
	}
	for i, v := range r.Series {
		if v != float64(want.PerSecond[i]) {
			t.Errorf("series[%d] = %v, want %d", i, v, want.PerSecond[i])
		}
	}
	// The last request is at the last second plus (n-1)/n of it.
	last := want.PerSecond[len(want.PerSecond)-1]
	if d := int64(len(per)-1)*1e9 + (last-1)*1e9/last; s.DurationNs != d {
		t.Errorf("duration %d ns, want %d", s.DurationNs, d)
	}

	k := s.Keys
	if !k.DistinctExact || k.Distinct != int64(want.DistinctKeys) || !k.CountsExact {
		t.Errorf("distinct keys %d (exact %v, counts exact %v), want %d exactly", k.Distinct, k.DistinctExact, k.CountsExact, want.DistinctKeys)
	}
	if len(k.Top) != trace.TopShown || k.Top[0].Count != want.TopCount {
		t.Errorf("top keys %+v, want %d, the first requested %d times", k.Top, trace.TopShown, want.TopCount)
	}
	if math.Abs(k.Zipf.Alpha-synth.Default.Theta) > 0.05 || k.Zipf.R2 < 0.98 || k.Zipf.Ranks < 100 {
		t.Errorf("zipf %+v, want alpha %v ± 0.05 over 100 ranks or more, R² >= 0.98", k.Zipf, synth.Default.Theta)
	}
	if s.KeySize.Min < 1 || s.ValueSize.Max > 64<<10 {
		t.Errorf("key sizes %+v, value sizes %+v", s.KeySize, s.ValueSize)
	}
}

// A different seed and skew: the fit follows the skew.
func TestZipfFitFollowsTheSkew(t *testing.T) {
	for _, theta := range []float64{0.6, 0.8, 0.99} {
		c := synth.Default
		c.Seed, c.Theta, c.Rate, c.Keys = 7, theta, 3000, 20000
		var buf bytes.Buffer
		if _, err := synth.Twitter(&buf, c); err != nil {
			t.Fatal(err)
		}
		r, err := trace.NewReader(&buf, "synth", trace.Twitter)
		if err != nil {
			t.Fatal(err)
		}
		s, err := trace.Summarize(r)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("theta %v: %+v", theta, s.Keys.Zipf)
		if z := s.Keys.Zipf; math.Abs(z.Alpha-theta) > 0.05 {
			t.Errorf("theta %v: fitted %+v", theta, z)
		}
	}
}

// workloads/traces/README.md states the shipped trace's counts.
func TestTracesREADMEStatesTheCounts(t *testing.T) {
	doc, err := os.ReadFile("../../workloads/traces/README.md")
	if err != nil {
		t.Fatal(err)
	}
	s, err := synth.Twitter(io.Discard, synth.Default)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("| delete | %s |", thousands(s.Delete)),
		fmt.Sprintf(") | %s |", thousands(s.Get)),
		fmt.Sprintf(") | %s |", thousands(s.Set)),
		fmt.Sprintf("| all | %s |", thousands(s.Requests)),
		fmt.Sprintf("%s requests", thousands(s.Requests)),
		fmt.Sprintf("%s of them requested", thousands(int64(s.DistinctKeys))),
	}
	for _, op := range synth.Mix {
		if op.Name != "delete" {
			want = append(want, fmt.Sprintf("%s %s", op.Name, thousands(s.Ops[op.Name])))
		}
	}
	for _, w := range want {
		if !strings.Contains(string(doc), w) {
			t.Errorf("workloads/traces/README.md lacks %q", w)
		}
	}
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
