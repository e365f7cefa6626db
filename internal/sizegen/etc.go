package sizegen

// ETC value sizes as mutilate's fb_value generates them
// (github.com/leverich/mutilate, Generator.cc, createFacebookValue, at
// d65c6ef): a discrete head giving the probability of each size from 0 to
// 14 bytes, and otherwise, with the remaining probability 0.55845, the
// integer part of a generalized Pareto draw with location 15, scale
// 214.476 and shape 0.348238 (mutilate truncates the double to an int in
// issue_set). The scale and shape are those Atikoglu et al. (SIGMETRICS
// 2012) fit to the ETC pool's value sizes; the paper gives the location as
// 0, mutilate moves the tail to 15 to start after its head.
var etcHead = [15]float64{
	0.00536, // 0 bytes
	0.00047,
	0.17820,
	0.09239,
	0.00018,
	0.02740, // 5
	0.00065,
	0.00606,
	0.00023,
	0.00837,
	0.00837, // 10
	0.08989,
	0.00092,
	0.00326,
	0.01980, // 14
}

// ETC value-size tail parameters (mutilate's GPareto(15.0, 214.476,
// 0.348238)).
const (
	etcLocation = 15
	etcScale    = 214.476
	etcShape    = 0.348238
)

// ETCGen draws the ETC pool's value sizes (see ETC). Sizes of 0 bytes are
// drawn, as mutilate draws them; Clamp raises them.
//
// Where mutilate draws one uniform for the head and another for the tail,
// ETCGen inverts the whole law from one: u below the head's probability
// picks a head size, the rest of [0, 1) is the tail's. That is the same
// law, and one guide then serves both.
type ETCGen struct {
	inverted
	headCum [len(etcHead)]float64 // P(size <= i)
	tail    *GPDGen
}

// ETC returns a generator of Facebook ETC value sizes.
func ETC() *ETCGen {
	g := &ETCGen{}
	var c float64
	for i, p := range etcHead {
		c += p
		g.headCum[i] = c
	}
	tail, err := NewGPD(etcLocation, etcScale, etcShape)
	if err != nil {
		panic(err) // constant, valid parameters
	}
	g.tail = tail
	g.init(g.size, g.cdf)
	return g
}

// headP is the head's probability, 0.44155.
func (g *ETCGen) headP() float64 { return g.headCum[len(etcHead)-1] }

// size maps u in [0, 1) to a size, non-decreasing in u.
func (g *ETCGen) size(u float64) int {
	if h := g.headP(); u >= h {
		return g.tail.size((u - h) / (1 - h))
	}
	s := 0
	for u >= g.headCum[s] {
		s++
	}
	return s
}

// cdf is the probability of a size <= s.
func (g *ETCGen) cdf(s int) float64 {
	if s < len(etcHead) {
		return g.headCum[s]
	}
	h := g.headP()
	return h + (1-h)*g.tail.CDF(s)
}
