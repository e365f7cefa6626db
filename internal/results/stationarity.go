package results

import (
	"fmt"
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/units"
)

// StationarityMinIntervals is the fewest full intervals a trend test is
// run on: below five, Mann-Kendall cannot reach p < 0.05, let alone
// StationarityAlpha, whatever the series.
const StationarityMinIntervals = 5

// StationarityAlpha is the level at which a trend counts as real. A cell
// runs up to three trend tests and a sweep has hundreds of cells, so 0.05
// would fail a few quiet cells in every sweep.
const StationarityAlpha = 0.01

// TrendBoundPctPerSec is how fast, in percent of its median per second, a
// cell's per-interval p50 or rate may drift before the drift matters. A
// cell's figures average its whole phase; at 1%/s the 5 to 10 s a cell
// usually runs move from first to last second by 5 to 10%, as much as
// the p99's precision bound (PrecisionBound), so its figures no longer
// describe one state. Slower drifts (caches warming, a page cache
// filling) are significant over a long cell of busy intervals yet move
// its figures less than run-to-run noise.
const TrendBoundPctPerSec = 1.0

// StallShare is the share of an interval one operation must take to mark
// a stall in it: the server, network or harness stopped, and whatever was
// in flight waited. A stop of 200 ms each second puts an operation of at
// least 200 ms in every second, while a trend test of per-second figures
// sees a flat series.
const StallShare = 0.1

// StallP50Ratio is how many times the cell's p50 an operation must also
// take to mark a stall, so that a cell whose every operation is slow (a
// 1 MiB transfer over a soft device) is not taken to stall.
const StallP50Ratio = 10

// StallMaxShare is the share of full intervals that may hold a stall: one
// stall in a cell is a tail event the p99 and RateSwing show; a stall in a
// quarter of the intervals or more is a recurring state the cell's
// figures mix in.
const StallMaxShare = 0.25

// StallEmptyMinOps is how many operations a full interval must hold on
// the mean for one with none done to mark a stall. Below it the cell is
// sparse (a rare size's rendezvous in a mix, a few a second), and by
// chance alone some of its intervals are empty: at 20 an interval, an
// empty one comes by chance about once in 500 million.
const StallEmptyMinOps = 20

// Methods of the stationarity checks.
const (
	MethodTrendP50    = "mann-kendall interval p50"
	MethodTrendRate   = "mann-kendall interval rate"
	MethodIntervalMax = "interval max"
)

// StationarityChecks tests whether a cell measured one state throughout:
// no trend in its per-interval p50 or rate (Mann-Kendall, sized by Sen's
// slope) and no recurring stall (an interval's longest operation).
// intervals are the cell's interval histograms of a phase that began at
// start, as RateSwing takes them. A cell with fewer than
// StationarityMinIntervals full intervals, one without an interval log
// (the stored sweeps keep none), and a ramped open-loop cell, whose rate
// and latency change by design, get no check.
func StationarityChecks(c Cell, start time.Time, intervals []*hdrhistogram.Histogram) []Check {
	if len(intervals) == 0 || len(c.Load.RampRatesOps) > 0 {
		return nil
	}
	slots := fullIntervals(c, start, intervals)
	if len(slots) < StationarityMinIntervals {
		return nil
	}
	secs := float64(c.IntervalNs) / 1e9
	var rates, p50s []float64
	for _, h := range slots {
		rates = append(rates, count(h)/secs)
		if h != nil {
			p50s = append(p50s, float64(h.ValueAtQuantile(50)))
		}
	}
	out := []Check{trendCheck(MethodTrendRate, "rate", rates, secs, opsPerSec)}
	if len(p50s) >= StationarityMinIntervals {
		out = append(out, trendCheck(MethodTrendP50, "p50", p50s, secs, units.Duration))
	}
	return append(out, stallCheck(c, slots))
}

// trendCheck runs Mann-Kendall on xs, one figure per interval of secs
// seconds, and fails on a significant trend faster than
// TrendBoundPctPerSec.
func trendCheck(method, what string, xs []float64, secs float64, format func(float64) string) Check {
	t := stats.MannKendall(xs)
	med := stats.Median(xs)
	pct := 0.0
	if med > 0 {
		pct = 100 * t.Slope / secs / med
	}
	p := t.P
	return Check{
		Name: CheckStationarity, Method: method, Statistic: t.Z, P: &p,
		Figure: fmt.Sprintf("interval %s trend %+.1f%%/s of its median %s over %d intervals",
			what, pct, format(med), len(xs)),
		Pass: t.P >= StationarityAlpha || math.Abs(pct) <= TrendBoundPctPerSec,
	}
}

// stallCheck counts the full intervals that stalled: nothing completed in
// them while the cell holds StallEmptyMinOps an interval on the mean, or
// one operation took StallShare of the interval and StallP50Ratio times
// the cell's p50. Statistic is their share.
func stallCheck(c Cell, slots []*hdrhistogram.Histogram) Check {
	bound := max(StallShare*float64(c.IntervalNs), StallP50Ratio*float64(c.Latency.P50))
	var ops float64
	for _, h := range slots {
		ops += count(h)
	}
	dense := ops >= StallEmptyMinOps*float64(len(slots))
	var stalled int
	var longest float64
	for _, h := range slots {
		if h == nil {
			if dense {
				stalled++
			}
			continue
		}
		m := float64(h.Max())
		longest = max(longest, m)
		if m >= bound {
			stalled++
		}
	}
	share := float64(stalled) / float64(len(slots))
	return Check{
		Name: CheckStationarity, Method: MethodIntervalMax, Statistic: share,
		Figure: fmt.Sprintf("%d of %d %s intervals stalled (an operation ≥ %s%s; longest %s)",
			stalled, len(slots), units.Duration(float64(c.IntervalNs)), units.Duration(bound), noneDone(dense), units.Duration(longest)),
		Pass: share < StallMaxShare,
	}
}

// opsPerSec formats a rate with its unit: 12.3k ops/s.
func opsPerSec(v float64) string { return units.Rate(v) + " ops/s" }

// noneDone says what else marks a stall: an empty interval, in a cell
// dense enough that one is not chance.
func noneDone(dense bool) string {
	if dense {
		return " or none done"
	}
	return ""
}
