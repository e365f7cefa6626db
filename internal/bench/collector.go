package bench

import (
	"math"
	"sort"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
)

const doneMark = math.MaxInt64

// Interval is one encoded interval histogram of a cell: [StartMs, EndMs)
// in ms since the epoch.
type Interval struct {
	StartMs, EndMs int64
	Encoded        []byte
}

// collector merges workers' per-second histograms into per-cell intervals.
// Workers hand over an interval when they move past it; an interval is
// final once every worker has moved past it, and is then encoded, so memory
// stays bounded however long the phase runs. Only the hand-over (once per
// worker per second) synchronizes.
type collector struct {
	mu      sync.Mutex
	startMs int64
	endMs   int64   // phase end, once known; clips the last interval
	marks   []int64 // per worker: every interval below is handed over
	acc     map[int64]*hset
	out     [numOps][numProtos][]Interval
	err     error
	// hear, if set, gets each interval as it is final, before encoding
	// recycles it: under mu, once a second, never per operation.
	hear IntervalObserver
	// until, if set, judges the phase's until at each final interval.
	until *untilWatch
}

func newCollector(workers int, startMs int64) *collector {
	return &collector{startMs: startMs, marks: make([]int64, workers), acc: map[int64]*hset{}}
}

// submit takes worker w's histograms for interval k (clearing *hs) and
// records that the worker now works in interval next.
func (c *collector) submit(w int, k int64, hs *hset, next int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for op := range hs {
		for p, h := range hs[op] {
			if h == nil {
				continue
			}
			hs[op][p] = nil
			if h.TotalCount() == 0 {
				histPool.Put(h)
				continue
			}
			a := c.acc[k]
			if a == nil {
				a = new(hset)
				c.acc[k] = a
			}
			if a[op][p] == nil {
				a[op][p] = h
				continue
			}
			a[op][p].Merge(h)
			h.Reset()
			histPool.Put(h)
		}
	}
	c.marks[w] = next
	c.flush(false)
}

// flush encodes every final interval (all of them when all is set).
func (c *collector) flush(all bool) {
	low := int64(doneMark)
	for _, m := range c.marks {
		low = min(low, m)
	}
	if low == doneMark && !all {
		return // every worker is done: end clips the last interval
	}
	var ks []int64
	for k := range c.acc {
		if all || k < low {
			ks = append(ks, k)
		}
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	for _, k := range ks {
		a := c.acc[k]
		delete(c.acc, k)
		for op := range a {
			for p, h := range a[op] {
				if h == nil {
					continue
				}
				if c.hear != nil {
					c.hear.Interval(Op(op), Protocol(p), h)
				}
				if c.until != nil {
					c.until.add(op, p, h)
				}
				b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
				if err != nil && c.err == nil {
					c.err = err
				}
				s := c.startMs + k*1000
				e := s + 1000
				if c.endMs > s && c.endMs < e {
					e = c.endMs
				}
				c.out[op][p] = append(c.out[op][p], Interval{StartMs: s, EndMs: e, Encoded: b})
				h.Reset()
				histPool.Put(h)
			}
		}
		if c.until != nil && !all {
			c.until.second((k + 1) * int64(time.Second))
		}
	}
}

// end records the phase end; call after every worker finished.
func (c *collector) end(endMs int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endMs = endMs
	c.flush(true)
}

// intervals returns the encoded intervals of (op, p) in time order; call
// after end.
func (c *collector) intervals(op Op, p Protocol) []Interval {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out[op][p]
}

// DecodeIntervals turns encoded intervals back into histograms with their
// start and end times set, ready for results.WriteHlog.
func DecodeIntervals(ivs []Interval) ([]*hdrhistogram.Histogram, error) {
	out := make([]*hdrhistogram.Histogram, 0, len(ivs))
	for _, iv := range ivs {
		h, err := results.DecodeHistogram(string(iv.Encoded))
		if err != nil {
			return nil, err
		}
		h.SetStartTimeMs(iv.StartMs)
		h.SetEndTimeMs(iv.EndMs)
		out = append(out, h)
	}
	return out, nil
}
