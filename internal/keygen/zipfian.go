package keygen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// ZipfianGen draws indexes in [0, n) with P(i) proportional to
// 1/(i+1)^theta: index 0 is the most popular. It is the algorithm of Gray
// et al., "Quickly Generating Billion-Record Synthetic Databases" (SIGMOD
// 1994), as used by YCSB. Unlike YCSB the item count is fixed, so zeta(n)
// is computed once in the constructor (O(n)) and Next is lock-free.
type ZipfianGen struct {
	n     int64
	theta float64
	alpha float64 // 1/(1-theta)
	zetan float64 // sum_{i=1..n} 1/i^theta
	eta   float64
	half  float64 // 1 + 0.5^theta: the cumulative mass of the first two items, scaled by zetan
}

// NewZipfian returns a zipfian generator over [0, n) with skew theta in
// (0, 1).
func NewZipfian(n int64, theta float64) (*ZipfianGen, error) {
	if n < 1 {
		return nil, fmt.Errorf("keygen: zipfian item count %d, want >= 1", n)
	}
	if !(theta > 0 && theta < 1) {
		return nil, fmt.Errorf("keygen: zipfian constant %v, want 0 < theta < 1", theta)
	}
	z := &ZipfianGen{n: n, theta: theta, alpha: 1 / (1 - theta)}
	z.zetan = zeta(n, theta)
	zeta2 := zeta(2, theta)
	// For n <= 2 the first two cases of Next cover every draw and eta is
	// 0/0; leave it zero.
	if n > 2 {
		z.eta = (1 - math.Pow(2/float64(n), 1-theta)) / (1 - zeta2/z.zetan)
	}
	z.half = 1 + math.Pow(0.5, theta)
	return z, nil
}

func zeta(n int64, theta float64) float64 {
	var sum float64
	for i := int64(1); i <= n; i++ {
		sum += 1 / math.Pow(float64(i), theta)
	}
	return sum
}

// Next returns an index in [0, n).
func (z *ZipfianGen) Next(r *rand.Rand) int64 {
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 || z.n == 1 {
		return 0
	}
	if uz < z.half {
		return 1
	}
	v := int64(float64(z.n) * math.Pow(z.eta*u-z.eta+1, z.alpha))
	// Rounding at u close to 1 can reach n.
	if v >= z.n {
		v = z.n - 1
	}
	return v
}

// Zeta returns the normalising constant zeta(n), so tests and callers can
// compute exact expected frequencies: P(i) = 1/((i+1)^theta * Zeta()).
func (z *ZipfianGen) Zeta() float64 { return z.zetan }
