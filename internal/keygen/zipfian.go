package keygen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// guideSize is how many equal slices of [0, 1) the guide table splits the
// uniform draw into: 16 KiB of int32, small enough to stay in L1/L2.
const guideSize = 4096

// ZipfianGen draws indexes in [0, n) with P(i) proportional to
// 1/(i+1)^theta: index 0 is the most popular. It is the algorithm of Gray
// et al., "Quickly Generating Billion-Record Synthetic Databases" (SIGMOD
// 1994), as used by YCSB. Unlike YCSB the item count is fixed, so zeta(n)
// is computed once in the constructor (O(n)) and Next is lock-free.
//
// The draw is a monotone function of one uniform u, so wherever it is
// constant over a whole slice of [0, 1) the answer is precomputed (guide):
// with the usual skews most draws are hot keys and skip the exp/log.
type ZipfianGen struct {
	n     int64
	theta float64
	alpha float64 // 1/(1-theta)
	zetan float64 // sum_{i=1..n} 1/i^theta
	eta   float64
	half  float64 // 1 + 0.5^theta: the cumulative mass of the first two items, scaled by zetan
	// guide[j] is the index every u in [j, j+1)/guideSize draws, or -1
	// when the slice spans several indexes.
	guide [guideSize]int32
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
	for j := range z.guide {
		lo := z.draw(float64(j) / guideSize)
		hi := z.draw(math.Nextafter(float64(j+1)/guideSize, 0))
		z.guide[j] = -1
		if lo == hi && lo <= math.MaxInt32 {
			z.guide[j] = int32(lo)
		}
	}
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
	if v := z.guide[int(u*guideSize)]; v >= 0 {
		return int64(v)
	}
	return z.draw(u)
}

// draw maps a uniform u in [0, 1) to an index.
func (z *ZipfianGen) draw(u float64) int64 {
	uz := u * z.zetan
	if uz < 1 || z.n == 1 {
		return 0
	}
	if uz < z.half {
		return 1
	}
	// x^alpha as exp(alpha*ln x): x is in (0, 1] here, where this equals
	// math.Pow to within an ulp or two at a third of its cost.
	v := int64(float64(z.n) * math.Exp(z.alpha*math.Log(z.eta*u-z.eta+1)))
	// Rounding at u close to 1 can reach n.
	if v >= z.n {
		v = z.n - 1
	}
	return v
}

// Zeta returns the normalising constant zeta(n), so tests and callers can
// compute exact expected frequencies: P(i) = 1/((i+1)^theta * Zeta()).
func (z *ZipfianGen) Zeta() float64 { return z.zetan }
