package trace

import (
	"math"
	"math/bits"

	"github.com/kvbench/kvbench/rdmakv"
)

// SizeCount is one row of a value-size histogram: Count values of about
// Size bytes.
type SizeCount struct {
	Size  int64
	Count int64
}

// Bucketing of the value-size histogram a fitted workload draws from:
// sizes below sizeExact exactly, larger ones in sizeSteps buckets a power
// of two (each spanning at most 1/sizeSteps of its octave, about 9%). A
// value size is below 2^32, so there are at most sizeExact +
// (32-log2(sizeExact))*sizeSteps = 328 buckets whatever the trace.
const (
	sizeExact    = 128
	sizeSteps    = 8
	sizeExactLog = 7 // log2(sizeExact)
	sizeBuckets  = sizeExact + (32-sizeExactLog)*sizeSteps
)

// sizeHist counts value sizes in buckets, keeping each bucket's sum so
// that its row can carry the mean of its sizes: the histogram's mean is
// then the sizes' mean.
type sizeHist struct {
	count [sizeBuckets]int64
	sum   [sizeBuckets]float64
	total int64
}

func sizeBucket(v int64) int {
	if v < sizeExact {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - 1
	sub := int(v>>(e-3)) & (sizeSteps - 1)
	return sizeExact + (e-sizeExactLog)*sizeSteps + sub
}

func (h *sizeHist) add(v int64) {
	b := sizeBucket(v)
	h.count[b]++
	h.sum[b] += float64(v)
	h.total++
}

// rows are the buckets holding sizes, smallest first, each at the mean of
// its sizes rounded to a byte.
func (h *sizeHist) rows() []SizeCount {
	var rows []SizeCount
	for b, n := range h.count {
		if n > 0 {
			rows = append(rows, SizeCount{Size: int64(math.Round(h.sum[b] / float64(n))), Count: n})
		}
	}
	return rows
}

// valueHists keeps the value sizes a fitted workload draws from: the sets'
// (what a store is given to hold) and the hits' (gets that found a value,
// the fallback for a trace without sets).
type valueHists struct {
	sets, hits sizeHist
}

func (v *valueHists) add(rec *Record) {
	switch {
	case rec.Op == rdmakv.OpSet:
		v.sets.add(int64(rec.ValueSize))
	case rec.Op == rdmakv.OpGet && rec.ValueSize > 0:
		v.hits.add(int64(rec.ValueSize))
	}
}

// ValueSizes are the value sizes of a trace as a histogram of at most a
// few hundred rows (see sizeHist), for a workload to draw from.
type ValueSizes struct {
	// Of says whose sizes Rows count: "sets", or "gets that hit" when the
	// trace has no set; Rows is empty when it has neither.
	Of   string
	Rows []SizeCount
}

func (v *valueHists) sizes() ValueSizes {
	if v.sets.total > 0 {
		return ValueSizes{Of: "sets", Rows: v.sets.rows()}
	}
	return ValueSizes{Of: "gets that hit", Rows: v.hits.rows()}
}
