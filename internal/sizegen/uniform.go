package sizegen

import (
	"fmt"
	"math/rand/v2"
)

// UniformGen draws every size in [min, max] with equal probability.
type UniformGen struct{ lo, hi int }

// NewUniform returns a uniform generator over [min, max], 0 <= min <= max.
func NewUniform(min, max int) (*UniformGen, error) {
	if min < 0 || min > max {
		return nil, fmt.Errorf("sizegen: uniform sizes from %d to %d, want 0 <= min <= max", min, max)
	}
	return &UniformGen{lo: min, hi: max}, nil
}

// Next returns a size in [min, max].
func (u *UniformGen) Next(r *rand.Rand) int {
	return u.lo + int(r.Uint64N(uint64(u.hi-u.lo)+1))
}

// CDF is the share of [min, max] at or below size.
func (u *UniformGen) CDF(size int) float64 {
	return cdfWithin(size, u.lo, u.hi, func(s int) float64 {
		return (float64(s-u.lo) + 1) / (float64(u.hi-u.lo) + 1)
	})
}

// Mean is (min+max)/2.
func (u *UniformGen) Mean() float64 { return u.clampedMean(u.lo, u.hi) }

func (u *UniformGen) clampedMean(lo, hi int) float64 { return smoothMean(u, lo, hi) }

// Min is the smallest size drawn.
func (u *UniformGen) Min() int { return u.lo }

// Max is the largest size drawn.
func (u *UniformGen) Max() int { return u.hi }
