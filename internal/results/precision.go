package results

import (
	"fmt"
	"strings"
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

// PrecisionChecks report the 95% confidence intervals of the cell's p50
// (CheckPrecision) and p99 (CheckTailPrecision) as compare computes them.
// Each fails when its half-width exceeds PrecisionBound of the estimate,
// or when too few operations lie beyond the quantile to bound it at all
// (Statistic -1). They are two checks because a cell can know its median
// well and its tail hardly: a p50 figure (a throughput, a p50 tune) is to
// be trusted from a cell whose p99 is not (Cell.TrustedMedian). The
// intervals assume independent operations; when the cell's independence
// check found consecutive latencies correlated (lag-1 rho > 0), they are
// taken on the effective sample size (stats.EffectiveN) instead, since a
// queue carried from one operation to the next makes them worth fewer. A
// cell without a histogram or operations gets no check.
func PrecisionChecks(c Cell) []Check {
	h, err := CellHistogram(c)
	if err != nil || h.TotalCount() == 0 {
		return nil
	}
	n := float64(h.TotalCount())
	rho := lag1Rho(c.Checks)
	nEff := stats.EffectiveN(n, rho)
	ops := units.Rate(n) + " ops"
	if nEff < n {
		ops = fmt.Sprintf("an effective %s of %s ops, lag-1 rho %.2f", units.Rate(nEff), units.Rate(n), rho)
	}
	check := func(name, label string, q float64) Check {
		w := halfWidth(h, q, nEff)
		return Check{
			Name: name, Method: MethodOrderStatistics, Statistic: w, Pass: w >= 0 && w <= PrecisionBound,
			Figure: fmt.Sprintf("%s %s (95%% CI, %s; over ±%.0f%% fails)", label, widthText(w), ops, 100*PrecisionBound),
		}
	}
	return []Check{check(CheckPrecision, "p50", 0.5), check(CheckTailPrecision, "p99", 0.99)}
}

// halfWidth is quantile q's interval's half-width relative to its
// estimate, or -1 when nEff operations cannot bound it (stats.Estimable).
func halfWidth(h *hdrhistogram.Histogram, q, nEff float64) float64 {
	if !stats.Estimable(nEff, q) {
		return -1
	}
	return relHalfWidth(stats.QuantileCIN(h, q, nEff))
}

// widthText prints a half-width, or that the operations cannot bound it.
func widthText(w float64) string {
	if w < 0 {
		return fmt.Sprintf("unbounded (fewer than %d ops beyond it)", stats.MinBeyondQuantile)
	}
	return fmt.Sprintf("±%.1f%%", 100*w)
}

// lag1Rho is the lag-1 correlation the cell's independence check found
// (0 without one). The harness decides that check from its samples and a
// rewrite keeps it, so a precision recomputed from the cell reads it here.
func lag1Rho(checks []Check) float64 {
	for _, k := range checks {
		if k.Name == CheckIndependence {
			return k.Statistic
		}
	}
	return 0
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
// (PrecisionChecks).
func CellChecks(c Cell, start time.Time, intervals []*hdrhistogram.Histogram) []Check {
	return append(StationarityChecks(c, start, intervals), PrecisionChecks(c)...)
}

// PartsChecks are the checks of a cell merged from parts (a mixed run's
// whole workload, a tune's sample of several ops or protocols), whose
// checks are given: every check but the precision ones as the least
// trusted part has it (MergeChecks), since a stall or a busy host in one
// part is one in the whole; and the precision of merged's own quantiles
// (PrecisionChecks), since its p50 rests on all the parts' operations,
// not on those of its rarest part. merged needs its histogram.
func PartsChecks(merged Cell, parts ...[]Check) []Check {
	var out []Check
	for _, p := range parts {
		out = MergeChecks(out, dropChecks(p, CheckPrecision, CheckTailPrecision))
	}
	merged.Checks = out
	return SetChecks(out, PrecisionChecks(merged))
}

// IsPrecision says whether the check named name judges a quantile's
// precision, which a cell merged from parts judges anew (PartsChecks).
func IsPrecision(name string) bool { return name == CheckPrecision || name == CheckTailPrecision }

// IsPrecisionWarning says whether w is a precision check's failure.
func IsPrecisionWarning(w Warning) bool {
	name, ok := strings.CutPrefix(w.Kind, WarnCheckPrefix)
	return ok && IsPrecision(name)
}
