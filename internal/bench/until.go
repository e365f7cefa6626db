package bench

import (
	"math"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/workload"
)

// How a warmup with until: stable judges its per-second p50s: settled
// (stats.Settled) within StableTolerance over the last StableWindow
// seconds.
const (
	StableWindow    = 6
	StableTolerance = 0.05
)

// untilWatch judges, at each interval the collector makes final, whether
// a phase with until may end, and once it may sets enough, which the
// workers read before each operation. It runs under the collector's lock,
// once a second, never per operation.
type untilWatch struct {
	u        workload.Until
	floorNs  int64 // the phase's duration, the least it runs
	floorOps int64 // the phase's ops, likewise
	enough   *atomic.Bool

	merged [numOps][numProtos]*hdrhistogram.Histogram // a measure phase's, so far
	sec    *hdrhistogram.Histogram                    // a warmup's current second, every op
	p50s   []float64                                  // a warmup's last StableWindow seconds
	ops    int64
	// met is set once the condition held; halfWidth is the widest
	// interval's half-width, as a fraction, when last judged.
	met       bool
	halfWidth float64
}

// newUntilWatch is the watch of phase ph, or nil when it has no until.
func newUntilWatch(ph workload.Phase, enough *atomic.Bool) *untilWatch {
	if ph.Until == nil {
		return nil
	}
	return &untilWatch{u: *ph.Until, floorNs: int64(ph.Duration), floorOps: ph.Ops, enough: enough,
		p50s: make([]float64, 0, StableWindow)}
}

// add takes interval histogram h of (op, p) before the collector recycles it.
func (u *untilWatch) add(op, p int, h *hdrhistogram.Histogram) {
	u.ops += h.TotalCount()
	dst := &u.merged[op][p]
	if u.u.Stable {
		dst = &u.sec
	}
	if *dst == nil {
		*dst = results.NewHistogram()
	}
	(*dst).Merge(h)
}

// second judges the phase at the end of an interval, elapsedNs into it.
func (u *untilWatch) second(elapsedNs int64) {
	if u.u.Stable {
		u.settle()
	} else {
		u.met = u.precise()
	}
	if u.met && elapsedNs >= u.floorNs && u.ops >= u.floorOps {
		u.enough.Store(true)
	}
}

// settle adds the second's p50 to the window and judges the window.
func (u *untilWatch) settle() {
	if u.sec == nil || u.sec.TotalCount() == 0 {
		return
	}
	if len(u.p50s) == StableWindow {
		copy(u.p50s, u.p50s[1:])
		u.p50s = u.p50s[:StableWindow-1]
	}
	u.p50s = append(u.p50s, float64(u.sec.ValueAtQuantile(50)))
	u.sec.Reset()
	u.met = len(u.p50s) == StableWindow && stats.Settled(u.p50s, StableTolerance)
}

// precise reports whether every histogram's asked quantiles are known
// within their precision, and holds at least MinOps.
func (u *untilWatch) precise() bool {
	ok, seen := true, false
	u.halfWidth = 0
	for op := range u.merged {
		for _, h := range u.merged[op] {
			if h == nil {
				continue
			}
			seen = true
			if h.TotalCount() < u.u.MinOps {
				ok = false
			}
			for _, q := range []struct{ q, want float64 }{{0.99, u.u.P99CI}, {0.5, u.u.P50CI}} {
				if q.want > 0 && !u.within(h, q.q, q.want) {
					ok = false
				}
			}
		}
	}
	return ok && seen
}

// within reports whether quantile q of h is known within want, noting
// the half-width.
func (u *untilWatch) within(h *hdrhistogram.Histogram, q, want float64) bool {
	if !stats.Estimable(float64(h.TotalCount()), q) {
		return false
	}
	iv := stats.QuantileCI(h, q)
	if iv.Est <= 0 {
		return false
	}
	hw := math.Max(iv.Hi-iv.Est, iv.Est-iv.Lo) / iv.Est
	u.halfWidth = math.Max(u.halfWidth, hw)
	return hw <= want
}

// phaseEnd says what ended phase ph after dur and ops operations.
func phaseEnd(ph workload.Phase, u *untilWatch, dur time.Duration, ops int64, interrupted bool) *results.PhaseEnd {
	e := &results.PhaseEnd{DurationNs: int64(dur), Until: ph.Until != nil}
	switch {
	case interrupted:
		e.Reason = results.EndInterrupted
	case u != nil && u.enough.Load() && ph.Until.Stable:
		e.Reason = results.EndStable
	case u != nil && u.enough.Load():
		e.Reason = results.EndPrecision
	case ph.Until != nil && ph.MaxOps > 0 && ops >= ph.MaxOps:
		e.Reason = results.EndMaxOps
	case ph.Until != nil:
		e.Reason = results.EndMaxDuration
	case ph.Ops > 0:
		e.Reason = results.EndOps
	default:
		e.Reason = results.EndDuration
	}
	if u != nil && !ph.Until.Stable {
		e.CIHalfWidth = u.halfWidth
	}
	return e
}

// phaseBounds are what end phase ph at the latest: its time (ns) and
// operations, 0 for no bound; with until, its caps.
func phaseBounds(ph workload.Phase) (limitNs, ops int64) {
	if ph.Until != nil {
		return int64(ph.MaxDuration), ph.MaxOps
	}
	return int64(ph.Duration), ph.Ops
}

// phaseOps are the operations ws completed in the phase.
func phaseOps(ws []*worker) int64 {
	var n int64
	for _, w := range ws {
		n += w.ops
	}
	return n
}

// attachEnds gives every Measurement of the phase what ended its warmup
// and its measure phase.
func attachEnds(ms []Measurement, warmup, measure *results.PhaseEnd) {
	for i := range ms {
		ms[i].WarmupEnd, ms[i].MeasureEnd = warmup, measure
	}
}

// clonePhaseEnd is a copy of e, so that each cell has its own.
func clonePhaseEnd(e *results.PhaseEnd) *results.PhaseEnd {
	if e == nil {
		return nil
	}
	c := *e
	return &c
}
