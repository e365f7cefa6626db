package stats

import (
	"math"
	"slices"
)

// exactLimit bounds the splits the exact test enumerates (C(n+m, n)); a
// larger comparison uses the normal approximation.
const exactLimit = 200000

// MannWhitney is the two-sided Mann-Whitney U test of whether a and b come
// from the same distribution, on mid-ranks so that ties are allowed. The
// p-value is exact, from every split of the pooled values into groups of
// len(a) and len(b), when there are at most exactLimit splits (10 runs a
// side: 184 756), else from the normal approximation with the tie
// correction. It needs no assumption about the distribution of the runs'
// figures. With fewer than two values on a side it returns p = 1.
func MannWhitney(a, b []float64) float64 {
	n, m := len(a), len(b)
	if n < 2 || m < 2 {
		return 1
	}
	ranks := midRanks(append(slices.Clone(a), b...))
	var ra float64
	for _, r := range ranks[:n] {
		ra += r
	}
	mean := float64(n) * float64(n+m+1) / 2 // of the rank sum of a
	obs := math.Abs(ra - mean)
	if binom(n+m, n) <= exactLimit {
		return exactP(ranks, n, obs-1e-9)
	}
	return normalP(ranks, n, m, obs)
}

// midRanks ranks xs from 1, tied values sharing the mean of their ranks.
func midRanks(xs []float64) []float64 {
	idx := order(xs)
	r := make([]float64, len(xs))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && xs[idx[j]] == xs[idx[i]] {
			j++
		}
		for k := i; k < j; k++ {
			r[idx[k]] = float64(i+j+1) / 2
		}
		i = j
	}
	return r
}

// order is the indexes of xs from its smallest value to its largest.
func order(xs []float64) []int {
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int { return cmpFloat(xs[i], xs[j]) })
	return idx
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// exactP is the share of the splits of ranks into n and the rest whose
// first group's rank sum lies at least obs from its mean.
func exactP(ranks []float64, n int, obs float64) float64 {
	total := len(ranks)
	mean := float64(n) * float64(total+1) / 2
	var hits, all float64
	var walk func(start, left int, sum float64)
	walk = func(start, left int, sum float64) {
		if left == 0 {
			all++
			if math.Abs(sum-mean) >= obs {
				hits++
			}
			return
		}
		for i := start; i <= total-left; i++ {
			walk(i+1, left-1, sum+ranks[i])
		}
	}
	walk(0, n, 0)
	return hits / all
}

// normalP is the normal approximation, with the variance corrected for
// ties.
func normalP(ranks []float64, n, m int, obs float64) float64 {
	N := float64(n + m)
	counts := map[float64]float64{}
	for _, r := range ranks {
		counts[r]++
	}
	var ties float64
	for _, t := range counts {
		ties += t*t*t - t
	}
	v := float64(n) * float64(m) / 12 * ((N + 1) - ties/(N*(N-1)))
	if v <= 0 {
		return 1
	}
	zs := (obs - 0.5) / math.Sqrt(v) // continuity correction
	if zs <= 0 {
		return 1
	}
	return math.Min(1, math.Erfc(zs/math.Sqrt2))
}

// binom is C(n, k) as a float (exact for the sizes it is used for).
func binom(n, k int) float64 {
	c := 1.0
	for i := 1; i <= k; i++ {
		c = c * float64(n-k+i) / float64(i)
	}
	return math.Round(c)
}
