package sizegen

import (
	"fmt"
	"math"
)

// GEVGen draws sizes from the generalized extreme value distribution with
// location mu, scale sigma and shape xi, by inversion: with U uniform in
// [0, 1) and E = -ln U, the draw is
//
//	mu + sigma * (E^-xi - 1) / xi    (xi != 0)
//	mu - sigma * ln E                (xi == 0, Gumbel)
//
// rounded to the nearest integer, as mutilate rounds key lengths
// (KeyGenerator in Generator.h); draws below 0 count as 0.
type GEVGen struct {
	inverted
	loc, scale, shape float64
	growth            growth
}

// ETC key-size parameters: mutilate's fb_key, "gev:30.7984,8.20449,0.078688"
// (Generator.cc, createFacebookKey), the fit of Atikoglu et al.
// (SIGMETRICS 2012, table 5) to the ETC pool's key sizes.
const (
	etcKeyLocation = 30.7984
	etcKeyScale    = 8.20449
	etcKeyShape    = 0.078688
)

// ETCKey returns a generator of Facebook ETC key sizes (mean about 36
// bytes, at most about 1800). mutilate also raises every key to at least
// the digits of the key count, which Clamp does, and derives each key's
// U from a hash of its index, so that a key keeps its length; Next draws
// afresh each call.
func ETCKey() *GEVGen {
	g, err := NewGEV(etcKeyLocation, etcKeyScale, etcKeyShape)
	if err != nil {
		panic(err) // constant, valid parameters
	}
	return g
}

// NewGEV returns a generalized extreme value generator; the scale must be
// > 0 and all three finite.
func NewGEV(location, scale, shape float64) (*GEVGen, error) {
	for _, p := range []float64{location, scale, shape} {
		if math.IsNaN(p) || math.IsInf(p, 0) {
			return nil, fmt.Errorf("sizegen: generalized extreme value parameters %v, %v, %v: want finite numbers", location, scale, shape)
		}
	}
	if !(scale > 0) {
		return nil, fmt.Errorf("sizegen: generalized extreme value scale %v, want > 0", scale)
	}
	g := &GEVGen{loc: location, scale: scale, shape: shape, growth: newGrowth(scale, shape)}
	g.init(g.size, g.cdf)
	return g, nil
}

// size maps u in [0, 1) to a size, non-decreasing in u.
func (g *GEVGen) size(u float64) int {
	lnE := math.Log(-math.Log(u)) // +Inf at u = 0
	return floorSize(g.loc + g.growth.at(-lnE) + 0.5)
}

// cdf is P(size <= s) = F(s+0.5) for the continuous law F.
func (g *GEVGen) cdf(s int) float64 {
	z := (float64(s) + 0.5 - g.loc) / g.scale
	if g.shape == 0 {
		return math.Exp(-math.Exp(-z))
	}
	if g.shape*z <= -1 {
		if g.shape > 0 {
			return 0 // below the lower bound
		}
		return 1 // above the upper bound
	}
	return math.Exp(-math.Exp(-math.Log1p(g.shape*z) / g.shape))
}
