package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

func summarize(t *testing.T, format Format, text string) *Summary {
	t.Helper()
	r, err := NewReader(strings.NewReader(text), "t.csv", format)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := Summarize(r)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func kvbenchAt(times ...int64) string {
	var b strings.Builder
	b.WriteString(KvbenchHeader + "\n")
	for i, ns := range times {
		fmt.Fprintf(&b, "%d,get,k%d,%d\n", ns, i, 10*(i+1))
	}
	return b.String()
}

func TestRateCountsEmptySeconds(t *testing.T) {
	s := summarize(t, Kvbench, kvbenchAt(5e9, 5.5e9, 8.2e9))
	r := s.Rate
	if r.Seconds != 4 || r.Min != 0 || r.Max != 2 || r.Median != 0 || r.Mean != 0.75 {
		t.Errorf("rate %+v, want 4 seconds, min 0, median 0, max 2, mean 0.75", r)
	}
	if !slices.Equal(r.Series, []float64{2, 0, 0, 1}) || r.IntervalS != 1 {
		t.Errorf("series %v at %d s, want [2 0 0 1] at 1 s", r.Series, r.IntervalS)
	}
	if s.DurationNs != 3.2e9 || s.Requests != 3 || s.Ops.Get != 3 {
		t.Errorf("%+v", s)
	}
	if v := s.ValueSize; v.Min != 10 || v.Max != 30 || v.P50 != 20 || v.Mean != 20 || v.Count != 3 {
		t.Errorf("value sizes %+v", v)
	}
}

func TestRateSeriesStaysCoarse(t *testing.T) {
	times := make([]int64, 1000)
	for i := range times {
		times[i] = int64(i) * 1e9
	}
	r := summarize(t, Kvbench, kvbenchAt(times...)).Rate
	if r.Seconds != 1000 || r.Min != 1 || r.Max != 1 || r.Median != 1 {
		t.Errorf("rate %+v", r)
	}
	if r.IntervalS != 16 || len(r.Series) != 63 {
		t.Errorf("%d points of %d s, want 63 of 16 s", len(r.Series), r.IntervalS)
	}
	for i, v := range r.Series {
		if v != 1 {
			t.Errorf("series[%d] = %v, want 1", i, v)
		}
	}
}

func TestRateSurvivesAHugeGap(t *testing.T) {
	start := time.Now()
	r := summarize(t, Kvbench, kvbenchAt(0, 1e18)).Rate
	if time.Since(start) > 10*time.Second {
		t.Errorf("a gap of 10^9 seconds took %v", time.Since(start))
	}
	if r.Seconds != 1e9+1 || r.Min != 0 || r.Max != 1 || len(r.Series) > SeriesPoints || r.Series[0] == 0 {
		t.Errorf("rate %+v", r)
	}
}

func TestSummarizeSkipsMalformedLines(t *testing.T) {
	s := summarize(t, Twitter, "0,a,1,2,3,get,0\n0,a,1,2,3,nope,0\n1,b,1,2,3,delete,0\n1,b\n")
	if s.Requests != 2 || s.Problems != 2 || !strings.HasPrefix(s.FirstProblem, "t.csv:2: operation") {
		t.Errorf("requests %d, problems %d (%s)", s.Requests, s.Problems, s.FirstProblem)
	}
	if s.ValueSize.Count != 1 || s.KeySize.Count != 2 {
		t.Errorf("value sizes over %d requests (deletes have none), key sizes over %d", s.ValueSize.Count, s.KeySize.Count)
	}
}

func TestSummarizeStopsAtAFailedRead(t *testing.T) {
	z := compress(t, []byte(twitterText(50, 1000)))
	r, err := NewReader(bytes.NewReader(z[:len(z)/2]), "cut.zst", Twitter)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := Summarize(r); err == nil || !strings.HasPrefix(err.Error(), "cut.zst:") {
		t.Errorf("a cut zstd stream: %v", err)
	}
}

func TestEmptySummary(t *testing.T) {
	s := summarize(t, Twitter, "")
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil || !strings.Contains(b.String(), "requests  0") {
		t.Errorf("%q %v", b.String(), err)
	}
}

func TestKeysTopAndZipfOnAKnownLaw(t *testing.T) {
	// Key i is requested floor(10000/i^1.2) times: exact counts, an exact
	// law, ranks in order.
	var b strings.Builder
	b.WriteString(KvbenchHeader + "\n")
	n, keys := 0, 0
	for i := 1; i <= 3000; i++ {
		c := int(10000 / math.Pow(float64(i), 1.2))
		if c > 0 {
			keys++
		}
		for range c {
			fmt.Fprintf(&b, "%d,get,key%d,1\n", n, i)
			n++
		}
	}
	s := summarize(t, Kvbench, b.String())
	k := s.Keys
	if k.Distinct != int64(keys) || !k.DistinctExact || !k.CountsExact {
		t.Errorf("distinct %d (exact %v, counts %v), want %d exactly", k.Distinct, k.DistinctExact, k.CountsExact, keys)
	}
	if k.Top[0].Key != "key1" || k.Top[0].Count != 10000 || k.Top[1].Key != "key2" || k.Top[1].Count != 4352 {
		t.Errorf("top %+v", k.Top[:2])
	}
	if z := k.Zipf; math.Abs(z.Alpha-1.2) > 0.01 || z.R2 < 0.999 {
		t.Errorf("zipf %+v, want alpha 1.2", z)
	}
	// Ranks stop at the first key requested fewer than ZipfMinCount times.
	want := 0
	for i := 1; 10000/math.Pow(float64(i), 1.2) >= ZipfMinCount; i++ {
		want = i
	}
	if k.Zipf.Ranks != min(want, ZipfRanks) {
		t.Errorf("fitted %d ranks, want %d", k.Zipf.Ranks, min(want, ZipfRanks))
	}
}

func TestFewKeysHaveNoZipf(t *testing.T) {
	s := summarize(t, Kvbench, kvbenchAt(1, 2, 3))
	if s.Keys.Zipf != (Zipf{}) {
		t.Errorf("zipf %+v of three keys requested once", s.Keys.Zipf)
	}
}

// Past ExactKeys the distinct count is HyperLogLog's estimate (the limit
// lowered here to keep the test quick).
func TestDistinctKeysEstimated(t *testing.T) {
	c := NewCollector()
	c.exactCap = 50000
	c.top = newTopK(1000)
	const n = 200000
	key := make([]byte, 0, 16)
	for i := range n {
		key = fmt.Appendf(key[:0], "k%d", i)
		c.Add(&Record{Time: int64(i), Op: 1, Key: key})
	}
	s := c.Summary()
	if s.Keys.DistinctExact {
		t.Error("distinct counted exactly past ExactKeys")
	}
	if e := math.Abs(float64(s.Keys.Distinct)/n - 1); e > 0.03 {
		t.Errorf("estimated %d distinct keys of %d (%.1f%% off)", s.Keys.Distinct, n, 100*e)
	}
	if s.Keys.CountsExact {
		t.Error("counts exact past TopCounters keys")
	}
}

// Space-Saving with fewer counters than keys still finds the heavy keys,
// and its counts bracket the truth.
func TestTopKBoundsCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	z := rand.NewZipf(r, 1.3, 1, 99999)
	truth := map[uint64]int64{}
	tk := newTopK(500)
	var key [8]byte
	for range 500000 {
		k := z.Uint64()
		truth[k]++
		for i := range key {
			key[i] = byte(k >> (8 * i))
		}
		tk.add(k, key[:])
	}
	if tk.evicted == 0 {
		t.Fatal("no evictions: the test tests nothing")
	}
	ranked := tk.sorted()
	for i, c := range ranked[:20] {
		if c.hash != uint64(i) {
			t.Errorf("rank %d is key %d, want %d", i+1, c.hash, i)
		}
		if tc := truth[c.hash]; c.count < tc || c.count-c.err > tc {
			t.Errorf("key %d: count %d (overcount %d), truth %d", c.hash, c.count, c.err, tc)
		}
	}
	// The map and the heap still index every counter.
	for i, c := range tk.counters {
		if tk.index[c.hash] != int32(i) || tk.heap[c.pos] != int32(i) {
			t.Fatalf("counter %d misindexed", i)
		}
	}
	for i := 1; i < len(tk.heap); i++ {
		if tk.less(i, (i-1)/2) {
			t.Fatalf("heap out of order at %d", i)
		}
	}
}

func TestWriteTextAndJSON(t *testing.T) {
	s := summarize(t, Twitter, twitterText(3, 100))
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"trace           t.csv (twitter)",
		"requests        300 over",
		"ops             get 188 (62.7%), set 75 (25.0%), delete 37 (12.3%)",
		"rate            min 100/s, median 100/s, max 100/s, mean 100/s",
		"distinct keys   300 (exact)",
		"top keys",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := s.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Requests != 300 || back.Ops != s.Ops || back.Rate.Median != 100 || back.Keys.Distinct != 300 {
		t.Errorf("JSON round trip: %+v", back)
	}
	for _, field := range []string{`"duration_ns"`, `"value_size"`, `"p999"`, `"distinct_exact"`, `"zipf"`, `"interval_s"`} {
		if !strings.Contains(b.String(), field) {
			t.Errorf("JSON lacks %s", field)
		}
	}
}

func TestHashSet(t *testing.T) {
	var s hashSet
	truth := map[uint64]bool{}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 100000 {
		h := r.Uint64() % 30000 * 0x9e3779b97f4a7c15 // repeats, and 0
		if i%1000 == 0 {
			h = 0
		}
		s.add(h)
		truth[h] = true
		if s.len() != len(truth) {
			t.Fatalf("after %d adds: %d members, want %d", i+1, s.len(), len(truth))
		}
	}
	if 2*s.n > len(s.slots) {
		t.Errorf("%d members in %d slots", s.n, len(s.slots))
	}
}

// BenchmarkSummarize reads and summarises a plain Twitter trace in memory
// and reports records per second.
func BenchmarkSummarize(b *testing.B) {
	data := []byte(twitterText(100, 10000))
	records := 0
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(data), "bench", Twitter)
		if err != nil {
			b.Fatal(err)
		}
		s, err := Summarize(r)
		if err != nil {
			b.Fatal(err)
		}
		records += int(s.Requests)
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}
