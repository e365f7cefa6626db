package stats

import "math"

// SignTestP is the one-sided sign test p-value: the probability of k or
// more successes in n fair coin flips.
func SignTestP(n, k int) float64 {
	if k <= 0 {
		return 1
	}
	// Sum C(n, i) / 2^n for i = k..n, each term from log-gamma so that
	// neither a factorial nor 0.5^n leaves a float64's range.
	p := 0.0
	for i := k; i <= n; i++ {
		p += math.Exp(lchoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Min(1, p)
}

// lchoose is ln C(n, k).
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// SignTestMinN is the fewest trials in which the sign test can reach level
// alpha: all n agreeing has probability 0.5^n by chance, so fewer can
// never show a significant winner.
func SignTestMinN(alpha float64) int {
	n := 1
	for math.Pow(0.5, float64(n)) > alpha {
		n++
	}
	return n
}
