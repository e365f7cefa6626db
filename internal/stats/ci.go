package stats

import (
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Z95 is the two-sided 95% normal quantile. Two 95% intervals that do not
// overlap mean a difference test at about the 0.6% level for intervals
// of equal width, tending to 5% as one narrows (docs/COMPARE.md).
const Z95 = 1.959964

// Interval is a confidence interval [Lo, Hi] around Est.
type Interval struct {
	Est, Lo, Hi float64
}

// Overlaps says whether a and b share any value.
func (a Interval) Overlaps(b Interval) bool { return a.Lo <= b.Hi && b.Lo <= a.Hi }

// MinBeyondQuantile is how many operations a sample must hold beyond a
// quantile (above it, or below one under the median) before the
// quantile's interval is judged: with fewer, the interval's outer end is
// the extreme value recorded, not a 95% bound, and a handful of alike
// operations would pass for a precise estimate (27 operations put the
// p99's interval within ±1% of their slowest).
const MinBeyondQuantile = 10

// Estimable reports whether n operations (or the effective number, for
// correlated ones) bound quantile q from both sides (MinBeyondQuantile).
func Estimable(n, q float64) bool {
	return n*math.Min(q, 1-q) >= MinBeyondQuantile
}

// QuantileCI is the distribution-free confidence interval for quantile q
// (0..1) from the order statistics: the rank of the sample q-quantile is
// Binomial(n, q), so with the normal approximation the ranks
// n*q ± Z95*sqrt(n*q*(1-q)) bracket the true quantile with 95% confidence
// whatever the latency distribution. The interval's ends are the recorded
// values at those ranks, read from the histogram.
func QuantileCI(h *hdrhistogram.Histogram, q float64) Interval {
	return QuantileCIN(h, q, float64(h.TotalCount()))
}

// QuantileCIN is QuantileCI for samples worth nEff independent ones
// (EffectiveN): the sample quantile's share of the ranks then varies as
// a binomial's over nEff, q ± Z95*sqrt(q*(1-q)/nEff), and the interval's
// ends are the recorded values at those shares of the histogram's count.
// nEff of at least the count is QuantileCI.
func QuantileCIN(h *hdrhistogram.Histogram, q, nEff float64) Interval {
	n := float64(h.TotalCount())
	if n == 0 || nEff <= 0 {
		return Interval{}
	}
	half := n * Z95 * math.Sqrt(q*(1-q)/math.Min(nEff, n))
	lo := math.Max(1, math.Floor(n*q-half))
	hi := math.Min(n, math.Ceil(n*q+half)+1)
	return Interval{
		Est: float64(h.ValueAtQuantile(100 * q)),
		Lo:  float64(valueAtRank(h, lo)),
		Hi:  float64(valueAtRank(h, hi)),
	}
}

// EffectiveN is how many independent samples n whose consecutive ones
// correlate by rho (lag 1) are worth, taking them as an AR(1) series:
// n*(1-rho)/(1+rho). A negative or zero rho gives n: alternation makes
// a quantile no less precise than the count says.
func EffectiveN(n, rho float64) float64 {
	if rho <= 0 {
		return n
	}
	return n * (1 - rho) / (1 + rho)
}

// valueAtRank is the value of the rank-th smallest recorded value (1-based).
func valueAtRank(h *hdrhistogram.Histogram, rank float64) int64 {
	// ValueAtQuantile resolves percentile p to rank int(p/100*n + 0.5), so
	// p = 100*rank/n lands exactly on rank.
	return h.ValueAtQuantile(100 * rank / float64(h.TotalCount()))
}

// MeanCI is the normal-theory interval for the mean of xs (Student t for
// small counts). ok is false with fewer than three values.
func MeanCI(xs []float64) (iv Interval, ok bool) {
	k := len(xs)
	if k < 3 {
		return Interval{}, false
	}
	var sum, sq float64
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(k)
	for _, x := range xs {
		sq += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(sq / float64(k-1))
	half := tQuantile(k-1) * sd / math.Sqrt(float64(k))
	return Interval{Est: mean, Lo: mean - half, Hi: mean + half}, true
}

// tQuantile is the two-sided 95% Student t quantile for df degrees of
// freedom (table up to 30, normal beyond).
func tQuantile(df int) float64 {
	table := []float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df < len(table) {
		return table[df]
	}
	return Z95
}
