package stats

import (
	"math"
	"testing"
)

func TestSignTestP(t *testing.T) {
	cases := []struct {
		n, k int
		want float64
	}{{5, 5, 1.0 / 32}, {8, 7, 9.0 / 256}, {10, 8, 56.0 / 1024}, {4, 0, 1}, {0, 0, 1}, {7, 6, 8.0 / 128}}
	for _, c := range cases {
		if got := SignTestP(c.n, c.k); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("SignTestP(%d, %d) = %g, want %g", c.n, c.k, got, c.want)
		}
	}
	// 200! is beyond a float64, the sum is not: half or more of 200 fair
	// flips is a little over even odds (0.5 + C(200, 100)/2^201).
	if p := SignTestP(200, 100); p < 0.52 || p > 0.54 {
		t.Errorf("SignTestP(200, 100) = %g, want about 0.528", p)
	}
	// 0.5^2000 underflows to zero; the p-value of half or more is still
	// a little over even odds.
	if p := SignTestP(2000, 1000); p < 0.5 || p > 0.52 {
		t.Errorf("SignTestP(2000, 1000) = %g, want about 0.509", p)
	}
}

func TestSignTestMinN(t *testing.T) {
	for _, c := range []struct {
		alpha float64
		want  int
	}{{0.05, 5}, {0.01, 7}, {0.3, 2}, {0.5, 1}} {
		got := SignTestMinN(c.alpha)
		if got != c.want {
			t.Errorf("SignTestMinN(%g) = %d, want %d", c.alpha, got, c.want)
		}
		// The fewest: n unanimous trials reach alpha, n-1 do not.
		if SignTestP(got, got) > c.alpha || (got > 1 && SignTestP(got-1, got-1) <= c.alpha) {
			t.Errorf("SignTestMinN(%g) = %d disagrees with SignTestP", c.alpha, got)
		}
	}
}
