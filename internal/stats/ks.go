package stats

import (
	"math"
	"slices"
)

// KS is the one-sample Kolmogorov-Smirnov test of whether xs come from the
// distribution whose CDF is cdf: D, the largest distance between the
// sample's empirical CDF and cdf, and its p-value from the Kolmogorov
// distribution with Stephens' correction for a finite sample (accurate
// to a few percent from n = 5 on). It suits a continuous cdf; against one
// with atoms (a point mass) D is large whenever the sample is not exactly
// on them, and the test says nothing useful.
func KS(xs []float64, cdf func(float64) float64) (d, p float64) {
	n := len(xs)
	if n == 0 {
		return 0, 1
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	for i, x := range s {
		f := cdf(x)
		d = max(d, float64(i+1)/float64(n)-f, f-float64(i)/float64(n))
	}
	return d, kolmogorovP(d, float64(n))
}

// KS2 is the two-sample Kolmogorov-Smirnov test of whether a and b come
// from the same distribution: D between their empirical CDFs, and its
// asymptotic p-value on the effective size len(a)len(b)/(len(a)+len(b)).
func KS2(a, b []float64) (d, p float64) {
	if len(a) == 0 || len(b) == 0 {
		return 0, 1
	}
	sa, sb := slices.Clone(a), slices.Clone(b)
	slices.Sort(sa)
	slices.Sort(sb)
	na, nb := float64(len(sa)), float64(len(sb))
	var i, j int
	for i < len(sa) && j < len(sb) {
		x := min(sa[i], sb[j])
		for i < len(sa) && sa[i] == x {
			i++
		}
		for j < len(sb) && sb[j] == x {
			j++
		}
		d = max(d, math.Abs(float64(i)/na-float64(j)/nb))
	}
	return d, kolmogorovP(d, na*nb/(na+nb))
}

// kolmogorovP is P(D_n > d): Q_KS((sqrt(n) + 0.12 + 0.11/sqrt(n)) d),
// where Q_KS(l) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 l^2).
func kolmogorovP(d, n float64) float64 {
	sn := math.Sqrt(n)
	l := (sn + 0.12 + 0.11/sn) * d
	if l < 0.2 {
		return 1 // the series converges slowly here, to 1
	}
	var q float64
	sign := 1.0
	for k := 1.0; k <= 100; k++ {
		term := sign * math.Exp(-2*k*k*l*l)
		q += term
		if math.Abs(term) < 1e-12 {
			break
		}
		sign = -sign
	}
	return min(max(2*q, 0), 1)
}
