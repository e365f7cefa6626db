// Package sizegen draws the value and key sizes of a workload from a
// distribution, one per file: weighted size lists (memtier's
// --data-size-list), uniform, generalized Pareto, Facebook's ETC value and
// key sizes, and histograms read from CSV, any of them clamped.
//
// The ETC pool's sizes were measured by Atikoglu et al., "Workload
// Analysis of a Large-Scale Key-Value Store" (SIGMETRICS 2012); ETC and
// ETCKey reproduce them as mutilate generates them (fb_value and fb_key in
// github.com/leverich/mutilate, Generator.cc).
//
// Like keygen, randomness is never global: each worker passes its own
// *rand.Rand to Next, and generators hold no mutable state, so one
// generator may serve every worker. Next does not allocate.
//
// Every distribution also states its law (Distribution: CDF, Mean, Min,
// Max) so that the sizes a run actually sent can be checked against what
// the workload asked for. Parse reads the workload's textual spec.
package sizegen

import (
	"math"
	"math/rand/v2"
)

// Generator draws sizes in bytes.
type Generator interface {
	Next(r *rand.Rand) int
}

// Func adapts a function to Generator.
type Func func(r *rand.Rand) int

// Next calls f(r).
func (f Func) Next(r *rand.Rand) int { return f(r) }

// Distribution is a Generator whose law is known exactly. Sizes are
// integers, so CDF is a step function and exact for every distribution,
// the continuous laws included (a generalized Pareto draw is the integer
// part of the continuous one, and its CDF says so); Mass gives the
// probability of each size. Only this package implements Distribution.
type Distribution interface {
	Generator
	// CDF is the probability that Next returns at most size bytes.
	CDF(size int) float64
	// Mean is the expected size. For the continuous laws the first 65536
	// sizes are summed exactly and the rest integrated numerically.
	Mean() float64
	// Min and Max bound every size Next returns; CDF(Min-1) is 0 and
	// CDF(Max) is 1. A heavy tail's Max is its draw at the smallest
	// uniform, 2^-53, or math.MaxInt where that overflows: clamp it.
	Min() int
	Max() int

	// clampedMean is the mean of min(max(size, lo), hi), lo <= hi, which
	// Clamp needs to state its own mean.
	clampedMean(lo, hi int) float64
}

// Mass is the probability that d draws exactly size bytes.
func Mass(d Distribution, size int) float64 {
	if size == math.MinInt {
		return d.CDF(size)
	}
	return d.CDF(size) - d.CDF(size-1)
}

// maxSize is 2^63, the first float64 above math.MaxInt.
const maxSize = 0x1p63

// floorSize is the integer part of a size drawn as a float, within
// [0, math.MaxInt] (NaN, which valid parameters never give, counts as
// unbounded).
func floorSize(x float64) int {
	if x < 0 {
		return 0
	}
	if !(x < maxSize) {
		return math.MaxInt
	}
	return int(x)
}

// lastU is the largest value rand.Float64 returns.
const lastU = 1 - 0x1p-53

// guideSize is how many equal slices of [0, 1) a guide splits the uniform
// draw into: 16 KiB of int32, as in keygen's zipfian.
const guideSize = 4096

// sliceBits is log2 of how many uniforms rand.Float64 can return in one
// slice: it returns multiples of 2^-53.
const sliceBits = 53 - 12

// guide speeds up inversion: the size is a monotone function of one
// uniform u, so wherever it is constant over a whole slice of [0, 1) the
// answer is precomputed and the logarithms are skipped. Where it steps up
// by one byte inside a slice, the uniform it steps at is precomputed too:
// such slices are most of the rest wherever a law's density exceeds a
// slice's width per byte, and otherwise would each cost a logarithm and
// an exponential.
type guide struct {
	// at is the size over slice j: -1 where it is not one size or two
	// sizes in a row, and -(s+2) where it is s below cut[j] and s+1 from
	// it on.
	at  [guideSize]int32
	cut [guideSize]float64
}

// init fills g from size, which must be non-decreasing in u.
func (g *guide) init(size func(u float64) int) {
	for j := range g.at {
		first, last := uint64(j)<<sliceBits, uint64(j+1)<<sliceBits-1
		lo, hi := size(uniform(first)), size(uniform(last))
		switch {
		case lo == hi && lo <= math.MaxInt32:
			g.at[j] = int32(lo)
		case hi == lo+1 && lo < math.MaxInt32-1:
			g.at[j] = int32(-lo - 2)
			g.cut[j] = uniform(stepAt(size, lo, first, last))
		default:
			g.at[j] = -1
		}
	}
}

// uniform is the k-th multiple of 2^-53, as rand.Float64 returns it.
func uniform(k uint64) float64 { return float64(k) * 0x1p-53 }

// stepAt is the least k in (first, last] at which size(uniform(k))
// exceeds lo, given that size is lo at first and above it at last.
func stepAt(size func(u float64) int, lo int, first, last uint64) uint64 {
	for last-first > 1 {
		m := first + (last-first)/2
		if size(uniform(m)) > lo {
			last = m
		} else {
			first = m
		}
	}
	return last
}

// next draws u and returns the size it maps to.
func (g *guide) next(r *rand.Rand, size func(u float64) int) int { return g.size(r.Float64(), size) }

// size is size(u), from the guide where it can be.
func (g *guide) size(u float64, size func(u float64) int) int {
	j := int(u * guideSize)
	switch v := g.at[j]; {
	case v >= 0:
		return int(v)
	case v < -1:
		s := int(-v - 2)
		if u >= g.cut[j] {
			s++
		}
		return s
	}
	return size(u)
}

// growth is scale*(exp(shape*t)-1)/shape, or scale*t at shape 0: the
// term both the generalized Pareto and the generalized extreme value
// inverse CDFs share.
type growth struct {
	shape float64
	ratio float64 // scale/shape, or scale at shape 0
	// precise is set where exp(shape*t)-1 would lose too much near t = 0
	// (its rounding, times scale/shape, above 2^-20 bytes); math.Expm1
	// is exact there but costs twice math.Exp.
	precise bool
}

func newGrowth(scale, shape float64) growth {
	if shape == 0 {
		return growth{ratio: scale}
	}
	return growth{shape: shape, ratio: scale / shape, precise: math.Abs(scale/shape) >= 0x1p33}
}

func (g growth) at(t float64) float64 {
	switch {
	case g.shape == 0:
		return g.ratio * t
	case g.precise:
		return g.ratio * math.Expm1(g.shape*t)
	}
	return g.ratio * (math.Exp(g.shape*t) - 1)
}

// inverted is a law drawn by inversion, which GPDGen and GEVGen embed:
// size maps a uniform u in [0, 1) to a size, non-decreasing in u, and cdf
// is the law's CDF, needed only between Min and Max.
type inverted struct {
	size     func(u float64) int
	cdf      func(s int) float64
	min, max int
	guide    guide
}

func (d *inverted) init(size func(u float64) int, cdf func(s int) float64) {
	d.size, d.cdf = size, cdf
	d.min, d.max = size(0), size(lastU)
	d.guide.init(size)
}

// Next returns a size in [Min, Max].
func (d *inverted) Next(r *rand.Rand) int { return d.guide.next(r, d.size) }

// CDF is the probability of a size <= s.
func (d *inverted) CDF(s int) float64 { return cdfWithin(s, d.min, d.max, d.cdf) }

// Mean is the mean size.
func (d *inverted) Mean() float64 { return smoothMean(d, d.min, d.max) }

func (d *inverted) clampedMean(lo, hi int) float64 { return smoothMean(d, lo, hi) }

// Min is the smallest size drawn, at u = 0.
func (d *inverted) Min() int { return d.min }

// Max is the largest size drawn, at u = 1-2^-53 (math.MaxInt if that
// overflows).
func (d *inverted) Max() int { return d.max }

// cdfWithin is a CDF over [lo, hi]: 0 below lo, 1 from hi on, cdf(s)
// between.
func cdfWithin(s, lo, hi int, cdf func(int) float64) float64 {
	switch {
	case s < lo:
		return 0
	case s >= hi:
		return 1
	}
	return cdf(s)
}

// clampTo is min(max(v, lo), hi).
func clampTo(v, lo, hi int) int { return min(max(v, lo), hi) }

// exactTerms is how many sizes smoothMean sums one by one before it
// integrates.
const exactTerms = 1 << 16

// smoothMean is clampedMean for a distribution whose CDF, beyond its
// first exactTerms sizes, is the CDF of a smooth law at integer points:
// E[clamp(X, lo, hi)] = a + sum over k in [a, b) of P(X > k), where
// [a, b] is the support clamped to [lo, hi]. The first exactTerms terms are
// summed; the rest is Simpson's rule on panels whose width grows with k
// (1/64 of it), plus the Euler-Maclaurin end correction.
func smoothMean(d Distribution, lo, hi int) float64 {
	a, b := clampTo(d.Min(), lo, hi), clampTo(d.Max(), lo, hi)
	s := func(k int) float64 { return 1 - d.CDF(k) }
	sum := float64(a)
	k := a
	for ; k < b && k-a < exactTerms; k++ {
		sum += s(k)
	}
	if k >= b {
		return sum
	}
	sum += (s(k) - s(b)) / 2
	if (b-k)%2 == 1 { // an odd span: one trapezoid, then even panels
		sum += (s(k) + s(k+1)) / 2
		k++
	}
	for k < b {
		h := min(max(k>>7, 1), (b-k)/2)
		m, q := k+h, k+2*h
		sum += float64(2*h) / 6 * (s(k) + 4*s(m) + s(q))
		k = q
	}
	return sum
}
