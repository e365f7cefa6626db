package results

import (
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/units"
)

// PrecisionBound is the largest half-width, relative to the estimate, the
// p99's 95% confidence interval may have. compare calls a difference when
// two cells' intervals do not overlap, so at ±10% a side only changes of
// about 20% or more can be told from too few operations; the p99 rests on
// its slowest 1%, so it is the first figure to run short.
const PrecisionBound = 0.10

// MethodOrderStatistics is the precision check's method: the
// distribution-free quantile interval compare uses (stats.QuantileCI).
const MethodOrderStatistics = "binomial order statistics"

// PrecisionCheck reports the 95% confidence intervals of the cell's p50
// and p99 as compare computes them, and fails when the p99's half-width
// exceeds PrecisionBound of the p99: the cell ran too few operations for
// its tail. A cell without a histogram or operations gets no check.
func PrecisionCheck(c Cell) (Check, bool) {
	h, err := CellHistogram(c)
	if err != nil || h.TotalCount() == 0 {
		return Check{}, false
	}
	p50 := relHalfWidth(stats.QuantileCI(h, 0.5))
	p99 := relHalfWidth(stats.QuantileCI(h, 0.99))
	return Check{
		Name: CheckPrecision, Method: MethodOrderStatistics, Statistic: p99,
		Figure: fmt.Sprintf("p50 ±%.1f%%, p99 ±%.1f%% (95%% CI, %s ops; over ±%.0f%% fails)",
			100*p50, 100*p99, units.Rate(float64(h.TotalCount())), 100*PrecisionBound),
		Pass: p99 <= PrecisionBound,
	}, true
}

// relHalfWidth is iv's half-width over its estimate.
func relHalfWidth(iv stats.Interval) float64 {
	if iv.Est <= 0 {
		return 0
	}
	return (iv.Hi - iv.Lo) / 2 / iv.Est
}

// CellChecks are the checks a cell's own figures decide: stationarity over
// its interval histograms of a phase that began at start
// (StationarityChecks) and the precision of its quantiles
// (PrecisionCheck).
func CellChecks(c Cell, start time.Time, intervals []*hdrhistogram.Histogram) []Check {
	out := StationarityChecks(c, start, intervals)
	if k, ok := PrecisionCheck(c); ok {
		out = append(out, k)
	}
	return out
}
