package sizegen

import "math/rand/v2"

// Clamp returns g with every size raised to at least min and lowered to at
// most max. A min below 1 counts as 1, so a clamped generator never draws
// an empty value; a max below min counts as min. The result is a
// Distribution when g is one.
func Clamp(g Generator, min, max int) Generator {
	c := clampGen{g: g, lo: min, hi: max}
	if c.lo < 1 {
		c.lo = 1
	}
	if c.hi < c.lo {
		c.hi = c.lo
	}
	if d, ok := g.(Distribution); ok {
		return &clampDist{clampGen: c, d: d}
	}
	return &c
}

type clampGen struct {
	g      Generator
	lo, hi int
}

func (c *clampGen) Next(r *rand.Rand) int { return clampTo(c.g.Next(r), c.lo, c.hi) }

type clampDist struct {
	clampGen
	d Distribution
}

func (c *clampDist) CDF(s int) float64 { return cdfWithin(s, c.lo, c.hi, c.d.CDF) }

func (c *clampDist) Mean() float64 { return c.d.clampedMean(c.lo, c.hi) }

// clampedMean clamps twice: to [c.lo, c.hi], then to [lo, hi]. Two clamps
// are one, to the intersection, unless the ranges are disjoint.
func (c *clampDist) clampedMean(lo, hi int) float64 {
	switch {
	case c.hi < lo:
		return float64(lo)
	case c.lo > hi:
		return float64(hi)
	}
	return c.d.clampedMean(max(c.lo, lo), min(c.hi, hi))
}

func (c *clampDist) Min() int { return clampTo(c.d.Min(), c.lo, c.hi) }
func (c *clampDist) Max() int { return clampTo(c.d.Max(), c.lo, c.hi) }

// Unclamped is d without the clamps Clamp put on it: the law a workload
// states before its min and max, against which the sizes it drew can be
// held to see what the clamps moved.
func Unclamped(d Distribution) Distribution {
	for {
		c, ok := d.(*clampDist)
		if !ok {
			return d
		}
		d = c.d
	}
}
