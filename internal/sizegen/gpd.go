package sizegen

import (
	"fmt"
	"math"
)

// GPDGen draws sizes from the generalized Pareto distribution with
// location mu, scale sigma and shape xi, by inversion: with U uniform in
// (0, 1], the draw is the integer part of
//
//	mu + sigma * (U^-xi - 1) / xi    (xi != 0)
//	mu - sigma * ln U                (xi == 0, the exponential limit)
//
// A positive shape gives a heavy tail (mean infinite from xi >= 1), a
// negative one a bounded support ending at mu - sigma/xi.
type GPDGen struct {
	inverted
	loc, scale, shape float64
	growth            growth
}

// NewGPD returns a generalized Pareto generator. The location must be >=
// 0 (sizes are never negative), the scale > 0, all three finite.
func NewGPD(location, scale, shape float64) (*GPDGen, error) {
	if !(location >= 0) || math.IsInf(location, 1) {
		return nil, fmt.Errorf("sizegen: generalized Pareto location %v, want a finite number >= 0", location)
	}
	if !(scale > 0) || math.IsInf(scale, 1) {
		return nil, fmt.Errorf("sizegen: generalized Pareto scale %v, want a finite number > 0", scale)
	}
	if math.IsNaN(shape) || math.IsInf(shape, 0) {
		return nil, fmt.Errorf("sizegen: generalized Pareto shape %v, want a finite number", shape)
	}
	g := &GPDGen{loc: location, scale: scale, shape: shape, growth: newGrowth(scale, shape)}
	g.init(g.size, g.cdf)
	return g, nil
}

// size maps u in [0, 1) to a size, non-decreasing in u. U = 1-u is exact
// (u is a multiple of 2^-53), so -ln U is at most 53 ln 2.
func (g *GPDGen) size(u float64) int {
	return floorSize(g.loc + g.growth.at(-math.Log(1-u)))
}

// cdf is P(size <= s) = F(s+1) for the continuous law F.
func (g *GPDGen) cdf(s int) float64 {
	z := (float64(s) + 1 - g.loc) / g.scale
	switch {
	case z <= 0:
		return 0
	case g.shape == 0:
		return -math.Expm1(-z)
	case g.shape*z <= -1:
		return 1
	}
	return -math.Expm1(-math.Log1p(g.shape*z) / g.shape)
}
