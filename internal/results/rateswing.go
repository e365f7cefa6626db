package results

import (
	"fmt"
	"slices"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/units"
)

// RateSwingRatio is the share of the median interval's rate below which the
// slowest full interval marks a cell whose conditions changed while it ran
// (a stall, a retransmission storm, another process taking the CPU): its
// figures then average two different states. The stored sweeps keep no
// interval logs; quickstart cells over TCP on a 2-core machine shared with
// other work had their slowest second at 0.58 to 0.88 of the median, and
// at 0.45 in a cell whose last two seconds ran at half the rate of the
// three before.
const RateSwingRatio = 0.5

// RateSwingMinIntervals is the fewest full intervals a cell needs for a
// verdict: with two, neither is the odd one out.
const RateSwingMinIntervals = 3

// RateSwingMinOps is the fewest operations the median interval must hold
// for a verdict: at 50 a Poisson count strays below half of it about once
// in ten thousand intervals, so counting noise alone does not warn.
const RateSwingMinOps = 50

// RateSwing flags a cell whose slowest full interval ran below
// RateSwingRatio times the median full interval's rate. Intervals are
// c.IntervalNs long from start; the last, cut short by the end of the
// phase, is left out, and a full interval missing from intervals had no
// operation complete in it. A ramped open-loop cell changes its rate by
// design and gets no verdict.
func RateSwing(c Cell, start time.Time, intervals []*hdrhistogram.Histogram) (Warning, bool) {
	if c.IntervalNs <= 0 || len(c.Load.RampRatesOps) > 0 {
		return Warning{}, false
	}
	slots := fullIntervals(c, start, intervals)
	full := len(slots)
	if full < RateSwingMinIntervals {
		return Warning{}, false
	}
	counts := make([]float64, full)
	for k, h := range slots {
		counts[k] = count(h)
	}
	med := stats.Median(counts)
	slowest := slices.Index(counts, slices.Min(counts))
	if med < RateSwingMinOps || counts[slowest] >= RateSwingRatio*med {
		return Warning{}, false
	}
	secs := float64(c.IntervalNs) / 1e9
	return Warning{Kind: WarnRateSwing, Message: fmt.Sprintf(
		"rate swing: interval %d of %d full %s intervals ran %s ops/s, %.2f× the median %s ops/s",
		slowest+1, full, units.Duration(float64(c.IntervalNs)), units.Rate(counts[slowest]/secs),
		counts[slowest]/med, units.Rate(med/secs))}, true
}
