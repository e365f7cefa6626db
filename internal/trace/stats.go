package trace

import (
	"errors"
	"io"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/axiomhq/hyperloglog"
	"github.com/cespare/xxhash/v2"

	"github.com/kvbench/kvbench/rdmakv"
)

// Summary is what one pass over a trace tells: the op mix, the key and
// value sizes, the request rate over time and how popular the keys are.
// Memory is bounded whatever the trace's length (see the fields).
type Summary struct {
	File   string `json:"file"`
	Format Format `json:"format"`
	// Requests counts the well-formed records.
	Requests int64    `json:"requests"`
	Ops      OpCounts `json:"ops"`
	// DurationNs is from the first request to the last.
	DurationNs int64 `json:"duration_ns"`
	// ValueSize is over gets and sets (a get's is what it found, 0 for a
	// miss in Twitter's traces); KeySize over every request, as recorded.
	ValueSize Sizes `json:"value_size"`
	KeySize   Sizes `json:"key_size"`
	Rate      Rate  `json:"rate"`
	Keys      Keys  `json:"keys"`
	// Problems counts the malformed lines skipped; FirstProblem is the
	// first of them. Summarize stops at a failed read instead.
	Problems     int64  `json:"problems"`
	FirstProblem string `json:"first_problem,omitempty"`
	// ValueSizes is the histogram a fitted workload draws its values'
	// sizes from (FitWorkload); the JSON summary leaves it out.
	ValueSizes ValueSizes `json:"-"`
}

// OpCounts counts requests by op.
type OpCounts struct {
	Get    int64 `json:"get"`
	Set    int64 `json:"set"`
	Delete int64 `json:"delete"`
}

// Sizes summarises sizes in bytes. The percentiles come from an
// HdrHistogram with 3 significant digits: exact below 2048 bytes, within
// 0.1% above; Min, Max and Mean are exact.
type Sizes struct {
	Count int64   `json:"count"`
	Min   int64   `json:"min"`
	P50   int64   `json:"p50"`
	P90   int64   `json:"p90"`
	P99   int64   `json:"p99"`
	P999  int64   `json:"p999"`
	Max   int64   `json:"max"`
	Mean  float64 `json:"mean"`
}

// Rate is the request rate over the trace's time, counted per second from
// the first request (second i holds the requests with Time in [i, i+1)
// seconds; seconds without a request count as 0).
type Rate struct {
	// Seconds is how many seconds the trace spans: the last request's
	// second plus one.
	Seconds int64 `json:"seconds"`
	// Min, Median and Max are requests in one second (the median within
	// 0.1% above 2048, like Sizes); Mean is Requests/Seconds.
	Min    int64   `json:"min"`
	Median int64   `json:"median"`
	Max    int64   `json:"max"`
	Mean   float64 `json:"mean"`
	// Series is the mean rate in requests per second over consecutive
	// intervals of IntervalS seconds (the last may be shorter): at most
	// SeriesPoints points, the interval doubling as the trace grows.
	IntervalS int64     `json:"interval_s"`
	Series    []float64 `json:"series"`
}

// Keys is key popularity.
type Keys struct {
	// Distinct is the number of distinct keys: exact (by 64-bit hash)
	// while at most ExactKeys were seen, then a HyperLogLog estimate
	// (2^14 registers, a standard error of about 0.8%); DistinctExact
	// says which.
	Distinct      int64 `json:"distinct"`
	DistinctExact bool  `json:"distinct_exact"`
	// Top are the TopShown most requested keys, most first.
	Top []KeyCount `json:"top"`
	// CountsExact says that every key's count is exact: the trace has at
	// most TopCounters distinct keys. Otherwise a key's Count may be too
	// high by its Overcount at most.
	CountsExact bool `json:"counts_exact"`
	Zipf        Zipf `json:"zipf"`
}

// KeyCount is one key's requests.
type KeyCount struct {
	Key       string  `json:"key"`
	Count     int64   `json:"count"`
	Share     float64 `json:"share"`
	Overcount int64   `json:"overcount,omitempty"`
}

// Zipf is the fitted popularity law count ∝ rank^-Alpha. The method: the
// keys sorted by count, most first, give points (ln rank, ln count) for
// ranks 1..Ranks; Alpha is minus the slope of the least-squares line
// through them, each point weighted 1/rank so that every decade of ranks
// weighs alike (unweighted, the ranks 100-1000 would outvote 1-100 nine to
// one). Ranks stops at ZipfRanks, at the first key requested fewer than
// ZipfMinCount times (below that, counts are too grainy to show a law) and
// at the first whose possible overcount exceeds a tenth of its count. R2
// is the weighted fit's coefficient of determination: near 1, the law
// fits. Alpha is 0 when fewer than 3 ranks qualify.
type Zipf struct {
	Alpha float64 `json:"alpha"`
	R2    float64 `json:"r2"`
	Ranks int     `json:"ranks"`
}

const (
	// ExactKeys is how many distinct keys are counted exactly (a set of
	// their hashes, 32 MB at the limit) before Distinct becomes an
	// estimate.
	ExactKeys = 1 << 20
	// TopCounters is how many keys Space-Saving tracks for Top and Zipf
	// (about 100 bytes and the key each).
	TopCounters = 1 << 16
	// TopShown is how many keys Top lists.
	TopShown = 10
	// ZipfRanks, ZipfMinCount: see Zipf.
	ZipfRanks    = 1000
	ZipfMinCount = 5
	// SeriesPoints bounds Rate.Series.
	SeriesPoints = 120
)

// Stats reads the trace at path once and summarises it.
func Stats(path string, format Format) (*Summary, error) {
	r, err := Open(path, format)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return Summarize(r)
}

// Summarize reads r to its end and summarises it. Malformed lines are
// skipped and counted (Summary.Problems); a failed read is returned.
func Summarize(r *Reader) (*Summary, error) {
	c := NewCollector()
	var problems int64
	var first string
	for {
		var rec Record
		err := r.Read(&rec)
		if err == nil {
			c.Add(&rec)
			continue
		}
		if err == io.EOF {
			break
		}
		var e *Error
		if !errors.As(err, &e) || e == r.fatal {
			return nil, err
		}
		if problems == 0 {
			first = err.Error()
		}
		problems++
	}
	s := c.Summary()
	s.File, s.Format = r.name, r.format
	s.Problems, s.FirstProblem = problems, first
	return s, nil
}

// Collector accumulates a Summary record by record.
type Collector struct {
	requests    int64
	ops         OpCounts
	first, last int64
	values      sizeAcc
	keys        sizeAcc
	hists       valueHists

	// The current second (from the first request) and its count;
	// perSecond, secMin, secMax and series hold the seconds before it.
	sec, secCount int64
	perSecond     *hdrhistogram.Histogram
	secMin        int64
	secMax        int64
	series        []int64 // requests per interval
	interval      int64   // seconds per point of series

	exact    *hashSet // nil once past exactCap
	exactCap int      // ExactKeys; tests lower it
	hll      *hyperloglog.Sketch
	top      *topK
}

type sizeAcc struct {
	h        *hdrhistogram.Histogram
	min, max int64
	sum      float64
}

func newSizeAcc() sizeAcc {
	return sizeAcc{h: hdrhistogram.New(1, 1<<32, 3), min: math.MaxInt64}
}

func (a *sizeAcc) add(v int64) {
	a.h.RecordValue(v)
	a.min, a.max = min(a.min, v), max(a.max, v)
	a.sum += float64(v)
}

func (a *sizeAcc) sizes() Sizes {
	n := a.h.TotalCount()
	if n == 0 {
		return Sizes{}
	}
	return Sizes{
		Count: n, Min: a.min, Max: a.max, Mean: a.sum / float64(n),
		P50: a.at(50), P90: a.at(90), P99: a.at(99), P999: a.at(99.9),
	}
}

// at is the percentile q, clamped to the exact extremes (the histogram
// reports a bucket's highest value).
func (a *sizeAcc) at(q float64) int64 {
	return min(max(a.h.ValueAtQuantile(q), a.min), a.max)
}

// NewCollector returns an empty collector.
func NewCollector() *Collector {
	return &Collector{
		values:    newSizeAcc(),
		keys:      newSizeAcc(),
		perSecond: hdrhistogram.New(1, 1<<40, 3),
		secMin:    math.MaxInt64,
		interval:  1,
		exact:     new(hashSet),
		exactCap:  ExactKeys,
		top:       newTopK(TopCounters),
	}
}

// Add counts one record; records must come in time order, as a Reader
// gives them.
func (c *Collector) Add(rec *Record) {
	if c.requests == 0 {
		c.first = rec.Time
	}
	c.requests++
	c.last = rec.Time
	switch rec.Op {
	case rdmakv.OpGet:
		c.ops.Get++
	case rdmakv.OpSet:
		c.ops.Set++
	case rdmakv.OpDelete:
		c.ops.Delete++
	}
	if rec.Op != rdmakv.OpDelete {
		c.values.add(int64(rec.ValueSize))
	}
	c.hists.add(rec)
	c.keys.add(int64(rec.KeySize))

	if sec := (rec.Time - c.first) / 1e9; sec > c.sec {
		c.advance(sec)
	}
	c.secCount++

	h := xxhash.Sum64(rec.Key)
	if c.exact == nil {
		c.hll.InsertHash(h)
	} else if c.exact.add(h); c.exact.len() > c.exactCap {
		c.estimate() // the exact count gives out: the sketch takes over
	}
	c.top.add(h, rec.Key)
}

// estimate moves the distinct keys from the exact set into a sketch,
// which counts them from then on. A sketch ignores order and repeats, so
// it ends as it would had it seen every request.
func (c *Collector) estimate() {
	c.hll = hyperloglog.New14()
	for _, h := range c.exact.slots {
		if h != 0 {
			c.hll.InsertHash(h)
		}
	}
	if c.exact.zero {
		c.hll.InsertHash(0)
	}
	c.exact = nil
}

// advance files the current second's count and moves to second sec,
// filing the empty seconds between at once.
func (c *Collector) advance(sec int64) {
	c.file(c.sec, c.secCount)
	if gap := sec - c.sec - 1; gap > 0 {
		c.perSecond.RecordValues(0, gap)
		c.secMin = 0
		c.place(sec - 1)
	}
	c.sec, c.secCount = sec, 0
}

// file counts n requests in second sec.
func (c *Collector) file(sec, n int64) {
	c.perSecond.RecordValue(n)
	c.secMin, c.secMax = min(c.secMin, n), max(c.secMax, n)
	c.series[c.place(sec)] += n
}

// place returns the series point second sec falls in, halving the series
// (merging neighbouring points, doubling the interval) until it has at
// most SeriesPoints, and extending it to that point.
func (c *Collector) place(sec int64) int64 {
	i := sec / c.interval
	for i >= SeriesPoints {
		for j := 0; j < len(c.series); j += 2 {
			v := c.series[j]
			if j+1 < len(c.series) {
				v += c.series[j+1]
			}
			c.series[j/2] = v
		}
		c.series = c.series[:(len(c.series)+1)/2]
		c.interval *= 2
		i = sec / c.interval
	}
	for int64(len(c.series)) <= i {
		c.series = append(c.series, 0)
	}
	return i
}

// Summary returns what was added so far; Add may go on after it.
func (c *Collector) Summary() *Summary {
	s := &Summary{Requests: c.requests, Ops: c.ops}
	if c.requests == 0 {
		return s
	}
	s.DurationNs = c.last - c.first
	s.ValueSize = c.values.sizes()
	s.KeySize = c.keys.sizes()
	s.ValueSizes = c.hists.sizes()

	// The rate, over a copy with the current (last) second filed.
	cp := *c
	cp.perSecond = hdrhistogram.Import(c.perSecond.Export())
	cp.series = append([]int64(nil), c.series...)
	cp.file(cp.sec, cp.secCount)
	seconds := cp.sec + 1
	s.Rate = Rate{
		Seconds:   seconds,
		Min:       cp.secMin,
		Median:    min(max(cp.perSecond.ValueAtQuantile(50), cp.secMin), cp.secMax),
		Max:       cp.secMax,
		Mean:      float64(c.requests) / float64(seconds),
		IntervalS: cp.interval,
	}
	for i, v := range cp.series {
		span := min(cp.interval, seconds-int64(i)*cp.interval)
		s.Rate.Series = append(s.Rate.Series, float64(v)/float64(span))
	}

	if c.exact != nil {
		s.Keys.Distinct, s.Keys.DistinctExact = int64(c.exact.len()), true
	} else {
		s.Keys.Distinct = int64(c.hll.Estimate())
	}
	s.Keys.CountsExact = c.top.evicted == 0
	ranked := c.top.sorted()
	for _, k := range ranked[:min(TopShown, len(ranked))] {
		s.Keys.Top = append(s.Keys.Top, KeyCount{
			Key: string(k.key), Count: k.count, Overcount: k.err,
			Share: float64(k.count) / float64(c.requests),
		})
	}
	s.Keys.Zipf = fitZipf(ranked)
	return s
}

// fitZipf fits count ∝ rank^-alpha to the most requested keys (see Zipf).
func fitZipf(ranked []kcounter) Zipf {
	var sw, sx, sy, sxx, sxy, syy float64
	n := 0
	for i, k := range ranked {
		if i == ZipfRanks || k.count < ZipfMinCount || k.err*10 > k.count {
			break
		}
		w := 1 / float64(i+1)
		x, y := math.Log(float64(i+1)), math.Log(float64(k.count))
		sw += w
		sx += w * x
		sy += w * y
		sxx += w * x * x
		sxy += w * x * y
		syy += w * y * y
		n++
	}
	if n < 3 {
		return Zipf{Ranks: n}
	}
	mx, my := sx/sw, sy/sw
	vx, vy, cxy := sxx/sw-mx*mx, syy/sw-my*my, sxy/sw-mx*my
	z := Zipf{Alpha: -cxy / vx, Ranks: n, R2: 1}
	if vy > 0 {
		z.R2 = cxy * cxy / (vx * vy)
	}
	return z
}
