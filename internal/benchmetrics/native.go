package benchmetrics

import (
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/bench"
)

// schema is the native histograms' resolution: 2^3 = 8 buckets per
// doubling, each about 9% wide, finer than a latency needs to be read.
const schema = 3

// opStats is the run's totals for one (operation, protocol): the
// operations, the failed ones (a miss is an answer, not a failure, as in
// results.Cell.Failures), and their latencies as native histogram
// buckets, kept as counts so each interval adds its histogram once.
type opStats struct {
	count, errors uint64
	sum           float64 // seconds
	buckets       map[int]int64
}

func newOpStats() *opStats { return &opStats{buckets: map[int]int64{}} }

// addErrors counts one cell's failures.
func (s *opStats) addErrors(m *bench.Measurement) {
	for k, n := range m.Errors {
		if k := bench.ErrorKind(k); k != bench.KindNone && k != bench.KindNotFound {
			s.errors += uint64(n)
		}
	}
}

// addHist counts an HdrHistogram of nanoseconds and moves it into the
// buckets: each of its bars lands, whole, in the bucket holding the bar's
// top value.
func (s *opStats) addHist(h *hdrhistogram.Histogram) {
	s.count += uint64(h.TotalCount())
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		v := float64(b.To) / 1e9
		s.buckets[bucket(v)] += b.Count
		s.sum += v * float64(b.Count)
	}
}

// bucket is the index of the schema's bucket holding v > 0: bucket i
// holds (2^((i-1)/2^schema), 2^(i/2^schema)].
func bucket(v float64) int {
	return int(math.Ceil(math.Log2(v) * (1 << schema)))
}
