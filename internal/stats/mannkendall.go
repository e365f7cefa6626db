package stats

import "math"

// Trend is the result of a Mann-Kendall test on a series taken at equal
// steps.
type Trend struct {
	// S is Kendall's score: the pairs (i < j) with xs[j] > xs[i] less
	// those with xs[j] < xs[i].
	S float64
	// Z is S standardised, with the continuity correction.
	Z float64
	// P is the two-sided p-value of no monotonic trend.
	P float64
	// Slope is Sen's estimate of the trend: the median of the slopes
	// (xs[j]-xs[i])/(j-i) over every pair, in units per step.
	Slope float64
}

// MannKendall tests xs, taken at equal steps, for a monotonic trend. It is
// rank-based: no model of the series (unlike the Dickey-Fuller test, which
// needs an autoregressive order chosen) and no assumption of normality,
// so it holds on the few, skewed per-interval figures a cell has. The
// p-value is from the normal approximation with the variance corrected
// for ties (Kendall 1975), close to exact from about 10 values on and
// conservative below. With fewer than three values it returns P = 1.
func MannKendall(xs []float64) Trend {
	n := len(xs)
	if n < 3 {
		return Trend{P: 1}
	}
	var s float64
	for i := range n {
		for j := i + 1; j < n; j++ {
			s += float64(cmpFloat(xs[j], xs[i]))
		}
	}
	v := kendallVariance(xs)
	t := Trend{S: s, P: 1, Slope: SenSlope(xs)}
	if v <= 0 || s == 0 {
		return t
	}
	t.Z = (s - math.Copysign(1, s)) / math.Sqrt(v)
	t.P = math.Min(1, math.Erfc(math.Abs(t.Z)/math.Sqrt2))
	return t
}

// kendallVariance is the variance of S under no trend, less what ties
// take from it.
func kendallVariance(xs []float64) float64 {
	n := float64(len(xs))
	counts := map[float64]float64{}
	for _, x := range xs {
		counts[x]++
	}
	v := n * (n - 1) * (2*n + 5)
	for _, t := range counts {
		v -= t * (t - 1) * (2*t + 5)
	}
	return v / 18
}

// SenSlope is the median of the pairwise slopes of xs, taken at equal
// steps: a trend's size that one outlier does not move.
func SenSlope(xs []float64) float64 {
	var slopes []float64
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			slopes = append(slopes, (xs[j]-xs[i])/float64(j-i))
		}
	}
	if len(slopes) == 0 {
		return 0
	}
	return Median(slopes)
}
