package stats

import "math"

// SignTestP is the one-sided sign test p-value: the probability of k or
// more successes in n fair coin flips.
func SignTestP(n, k int) float64 {
	if k <= 0 {
		return 1
	}
	// Sum C(n, i) / 2^n for i = k..n, the terms built by ratio so that no
	// factorial overflows.
	term := math.Pow(0.5, float64(n)) // i = n
	p := 0.0
	for i := n; i >= k; i-- {
		p += term
		term *= float64(i) / float64(n-i+1)
	}
	return math.Min(1, p)
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
