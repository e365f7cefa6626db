package bench

import (
	"fmt"
	"math"
	"time"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/units"
)

// Bounds of the harness's checks; docs/TRUST.md says why each.
const (
	checkAlpha = 0.01
	// maxRho is the lag-1 correlation above which independence fails.
	// A closed loop with several connections on a busy server carries
	// its queue from one operation to the next, so 0.3 to 0.6 is its
	// nature, not a fault; the precision check answers for it by taking
	// its intervals on the effective sample, n·(1-rho)/(1+rho). Beyond
	// 0.8 that sample is under a ninth of the operations: the cell is
	// mostly one slow stretch (a stall, an open loop's growing backlog)
	// and its figures describe that stretch, however many operations.
	maxRho = 0.8
	// minPairs is the fewest pairs a check is computed on.
	minPairs = 30
	// gapTolerance is how far from its intended length an inter-arrival
	// may be; maxOffGaps the share of them that may be that far off.
	gapTolerance = 0.10
	maxOffGaps   = 0.10
	// minKSD is the KS distance that fails a schedule not of even
	// intervals, where a significant D (0.036 at 4096 pairs) may be mere
	// microseconds of jitter.
	minKSD = 0.1
	// lateFloor and lateShare: an operation issued more than
	// max(lateFloor, 10% of the cell's p50) after its intended start is
	// late; more than lateShare of them fails the check.
	lateFloor = time.Millisecond
	lateShare = 0.01
)

// attachChecks gives each measurement the checks the harness alone can
// compute, from the samples its workers kept: its cell's independence,
// and in an open loop (or a replay at a speed) the phase's inter-arrivals
// and late starts.
func attachChecks(ms []Measurement, ws []*worker, pacer Pacer) {
	for i := range ms {
		m := &ms[i]
		if k, ok := independence(ws, m.Op, m.Protocol); ok {
			m.Checks = append(m.Checks, k)
		}
		if k, ok := interarrival(ws, pacer); ok {
			m.Checks = append(m.Checks, k)
		}
		if k, ok := lateStarts(ws, m.Hist.ValueAtQuantile(50)); ok {
			m.Checks = append(m.Checks, k)
		}
	}
}

// independence tests whether a cell's consecutive latencies, within
// each worker, are correlated (Spearman, lag 1), as Lancet does: the
// percentiles' confidence intervals assume independent samples. Its rho
// sizes the effective sample the precision check judges on
// (results.PrecisionCheck); it fails only a cell dependent beyond that.
func independence(ws []*worker, op Op, p Protocol) (results.Check, bool) {
	x, y := samplePairsOf(ws, func(r *recorder) *runs[int64] { return r.lat[op][p] },
		func(a, b int64) (float64, float64) { return float64(a), float64(b) })
	if len(x) < minPairs {
		return results.Check{}, false
	}
	rho, pv := stats.Spearman(x, y)
	return results.Check{
		Name: results.CheckIndependence, Method: "spearman lag-1", Statistic: rho, P: &pv,
		Figure: fmt.Sprintf("lag-1 rank correlation %.2f over %d consecutive pairs", rho, len(x)),
		Pass:   !(pv < checkAlpha && rho > maxRho),
	}, true
}

// gaps are the achieved and intended inter-arrivals of the sampled
// consecutive operations of each worker, in nanoseconds.
func gaps(ws []*worker) (got, want []float64) {
	return samplePairsOf(ws, func(r *recorder) *runs[issued] { return r.issues },
		func(a, b issued) (float64, float64) { return float64(b.at - a.at), float64(b.off - a.off) })
}

// samplePairsOf is f of the consecutive pairs in each worker's sample
// that pick chooses, as two columns, up to samplePairs a worker's turn.
func samplePairsOf[T any](ws []*worker, pick func(*recorder) *runs[T], f func(a, b T) (float64, float64)) (xs, ys []float64) {
	for _, w := range ws {
		if s := pick(w.rec); s != nil {
			s.pairs(func(a, b T) bool {
				x, y := f(a, b)
				xs, ys = append(xs, x), append(ys, y)
				return len(xs) < samplePairs
			})
		}
	}
	return xs, ys
}

// interarrival tests whether the operations were issued at the
// schedule's pace. A schedule of even intervals (a rate, a ramp's steps)
// is a point mass a KS test cannot judge, so its gaps are each held to
// their intended length; any other (a trace's times) by a two-sample KS
// test of the achieved gaps against the intended ones.
func interarrival(ws []*worker, pacer Pacer) (results.Check, bool) {
	got, want := gaps(ws)
	if len(got) < minPairs {
		return results.Check{}, false
	}
	switch pacer.(type) {
	case ConstantPacer, *RampPacer:
		off := 0
		for i := range got {
			if math.Abs(got[i]-want[i]) > gapTolerance*want[i] {
				off++
			}
		}
		share := float64(off) / float64(len(got))
		return results.Check{
			Name: results.CheckInterarrival, Method: "interval spread", Statistic: share,
			Figure: fmt.Sprintf("%.1f%% of %d inter-arrivals more than %.0f%% off the schedule's", 100*share, len(got), 100*gapTolerance),
			Pass:   share <= maxOffGaps,
		}, true
	}
	d, pv := stats.KS2(got, want)
	return results.Check{
		Name: results.CheckInterarrival, Method: "kolmogorov-smirnov", Statistic: d, P: &pv,
		Figure: fmt.Sprintf("inter-arrivals D=%.3f from the schedule's over %d", d, len(got)),
		Pass:   !(pv < checkAlpha && d > minKSD),
	}, true
}

// lateStarts is the share of the sampled operations issued more than a
// bound after their intended start: every one, whether the harness was
// slow to wake (IssueDelay) or the worker was still busy with earlier
// ones (backlog), since either way the target did not see the schedule.
func lateStarts(ws []*worker, p50 int64) (results.Check, bool) {
	bound := max(int64(lateFloor), p50/10)
	var n, late int
	for _, w := range ws {
		if s := w.rec.issues; s != nil {
			for _, v := range s.buf {
				n++
				if v.at-v.off > bound {
					late++
				}
			}
		}
	}
	if n < minPairs {
		return results.Check{}, false
	}
	share := float64(late) / float64(n)
	return results.Check{
		Name: results.CheckLateStarts, Method: "share late", Statistic: share,
		Figure: fmt.Sprintf("%.1f%% of %d operations issued more than %s late", 100*share, n, units.Duration(float64(bound))),
		Pass:   share <= lateShare,
	}, true
}
