package bench

import (
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
)

// hset is one histogram per (op, protocol); nil until first used.
type hset [numOps][numProtos]*hdrhistogram.Histogram

// kindCounts counts outcomes per (op, protocol, kind).
type kindCounts [numOps][numProtos][NumKinds]int64

const intervalNs = int64(time.Second)

// histPool recycles interval histograms between workers and the collector
// so that rotating intervals does not allocate in steady state.
var histPool = sync.Pool{New: func() any { return results.NewHistogram() }}

// recorder is one worker's measurements for one phase. Only its worker
// touches it until the phase ends.
type recorder struct {
	total hset
	ivl   hset
	ivlK  int64
	errs  kindCounts
	// bytes are the value bytes the successful operations moved.
	bytes [numOps][numProtos]int64
	// late is how late the worker issued open-loop operations it was free
	// to issue on time (see worker.runOpen); nil until the first.
	late   *hdrhistogram.Histogram
	sink   *collector
	worker int
	// ph holds the phases of the operations the target timed.
	ph [numOps][numProtos]*PhaseHists
	// cls splits the latencies by the value's size class when the run
	// draws its values' sizes (Config.Sizes); nil otherwise.
	cls *classRec
	// recordedMisses (a replay) count, by protocol, the gets the trace
	// recorded as misses.
	recordedMisses [numProtos]int64
	// lat samples each cell's consecutive latencies, issues the
	// open-loop operations' issue times, for the checks (checks.go);
	// perWorker is each one's capacity (sampleCap).
	lat       [numOps][numProtos]*runs[int64]
	issues    *runs[issued]
	perWorker int
}

// next is the recorder of a worker's next phase, handing c its
// histograms of the op's totals, size classes (classes: the run draws
// its values' sizes) and issue delays, which recycle has reset; r may be
// nil, before the first phase.
func (r *recorder) next(c *collector, worker, perWorker int, classes bool) *recorder {
	n := &recorder{sink: c, worker: worker, perWorker: perWorker}
	if r != nil {
		n.total, n.cls, n.late = r.total, r.cls, r.late
	}
	if classes && n.cls == nil {
		n.cls = new(classRec)
	}
	return n
}

// used reports whether h recorded anything this phase: a histogram a
// worker keeps from an earlier phase (next) is there but empty.
func used(h *hdrhistogram.Histogram) bool { return h != nil && h.TotalCount() > 0 }

// resetHists empties the histograms next hands on; nil-safe.
func (r *recorder) resetHists() {
	if r == nil {
		return
	}
	for op := range r.total {
		for p, h := range r.total[op] {
			if h != nil {
				h.Reset()
			}
			if r.cls != nil {
				for _, h := range r.cls.hist[op][p] {
					if h != nil {
						h.Reset()
					}
				}
				r.cls.bytes[op][p] = [numClasses]int64{}
			}
		}
	}
	if r.late != nil {
		r.late.Reset()
	}
}

// recordPhases stores the phases of one operation of latency latNs;
// queueNs is its queueing in an open loop, negative in a closed one.
func (r *recorder) recordPhases(op Op, p Protocol, o *OpPhases, latNs, queueNs int64) {
	h := r.ph[op][p]
	if h == nil {
		h = new(PhaseHists)
		r.ph[op][p] = h
	}
	h.record(o, latNs, queueNs, queueNs >= 0)
}

// recordLate stores the issue delay of one operation.
func (r *recorder) recordLate(ns int64) {
	ns = min(max(ns, 0), results.HighestNs)
	if r.late == nil {
		r.late = results.NewHistogram()
	}
	r.late.RecordValue(ns)
}

// record stores one operation's latency, measured in nanoseconds, and its
// outcome, and returns the latency as recorded (clamped to the
// histograms' range). endNs is when it completed, relative to the phase
// start; it picks the interval.
func (r *recorder) record(op Op, p Protocol, latNs int64, kind ErrorKind, endNs int64) int64 {
	if latNs < results.LowestNs {
		latNs = results.LowestNs
	} else if latNs > results.HighestNs {
		latNs = results.HighestNs
	}
	if k := endNs / intervalNs; k != r.ivlK {
		r.rotate(k)
	}
	t := r.total[op][p]
	if t == nil {
		t = results.NewHistogram()
		r.total[op][p] = t
	}
	t.RecordValue(latNs) // in range by the clamp above
	iv := r.ivl[op][p]
	if iv == nil {
		iv = histPool.Get().(*hdrhistogram.Histogram)
		r.ivl[op][p] = iv
	}
	iv.RecordValue(latNs)
	r.errs[op][p][kind]++
	return latNs
}

// recordSize stores one operation's latency, as record returned it, by
// its value's size class.
func (r *recorder) recordSize(op Op, p Protocol, size int, moved, latNs int64) {
	r.cls.record(op, p, size, moved, latNs)
}

// rotate hands the current interval to the collector and starts interval k.
func (r *recorder) rotate(k int64) {
	r.sink.submit(r.worker, r.ivlK, &r.ivl, k)
	r.ivlK = k
}

// finish hands over the last interval and marks the worker done.
func (r *recorder) finish() {
	r.sink.submit(r.worker, r.ivlK, &r.ivl, doneMark)
}
