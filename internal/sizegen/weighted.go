package sizegen

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
)

// Weight is one size of a weighted list and its relative weight.
type Weight struct {
	Size   int
	Weight float64
}

// WeightedGen draws sizes from a finite list with relative weights, as
// memtier's --data-size-list size:weight,... does, in O(1) by Vose's alias
// method. Histograms are weighted lists with counts for weights.
type WeightedGen struct {
	alias alias
	sizes []int     // distinct, ascending, each with a positive weight
	probs []float64 // probs[i] = P(size == sizes[i])
	cum   []float64 // cum[i] = P(size <= sizes[i]); the last is 1
}

// NewWeighted returns a generator over ws. Sizes must be >= 0 and
// weights finite and >= 0 with a positive sum; a size listed twice gets
// the sum of its weights, and sizes of weight 0 are never drawn.
func NewWeighted(ws []Weight) (*WeightedGen, error) {
	var total float64
	merged := map[int]float64{}
	for _, w := range ws {
		if w.Size < 0 {
			return nil, fmt.Errorf("sizegen: size %d, want >= 0", w.Size)
		}
		if !(w.Weight >= 0) || math.IsInf(w.Weight, 1) {
			return nil, fmt.Errorf("sizegen: size %d has weight %v, want a finite number >= 0", w.Size, w.Weight)
		}
		total += w.Weight
		if w.Weight > 0 {
			merged[w.Size] += w.Weight
		}
	}
	if total == 0 {
		return nil, errors.New("sizegen: no size has a positive weight")
	}
	if math.IsInf(total, 1) {
		return nil, errors.New("sizegen: weights too large: their sum overflows")
	}
	g := &WeightedGen{}
	for s := range merged {
		g.sizes = append(g.sizes, s)
	}
	slices.Sort(g.sizes)
	g.probs = make([]float64, len(g.sizes))
	g.cum = make([]float64, len(g.sizes))
	var c float64
	for i, s := range g.sizes {
		g.probs[i] = merged[s] / total
		c += g.probs[i]
		g.cum[i] = c
	}
	g.cum[len(g.cum)-1] = 1
	g.alias = newAlias(g.sizes, g.probs)
	return g, nil
}

// Next returns one of the listed sizes.
func (g *WeightedGen) Next(r *rand.Rand) int { return g.alias.next(r) }

// CDF is the probability of a size <= size.
func (g *WeightedGen) CDF(size int) float64 {
	i := sort.Search(len(g.sizes), func(i int) bool { return g.sizes[i] > size })
	if i == 0 {
		return 0
	}
	return g.cum[i-1]
}

// Mean is the weighted mean size.
func (g *WeightedGen) Mean() float64 { return g.clampedMean(g.Min(), g.Max()) }

func (g *WeightedGen) clampedMean(lo, hi int) float64 {
	var m float64
	for i, s := range g.sizes {
		m += g.probs[i] * float64(clampTo(s, lo, hi))
	}
	return m
}

// Min is the smallest size drawn.
func (g *WeightedGen) Min() int { return g.sizes[0] }

// Max is the largest size drawn.
func (g *WeightedGen) Max() int { return g.sizes[len(g.sizes)-1] }

// Sizes lists the sizes drawn, ascending, and the probability of each.
// The slices are the generator's own: do not modify them.
func (g *WeightedGen) Sizes() (sizes []int, probs []float64) { return g.sizes, g.probs }

// alias is a table for Vose's alias method: column i (each drawn with
// probability 1/n) yields keep with probability thresh/2^64, else other.
type alias []aliasColumn

type aliasColumn struct {
	thresh      uint64
	keep, other int
}

// newAlias builds the table of values with probabilities probs (summing to
// 1), after M. D. Vose, "A linear algorithm for generating random numbers
// with a given distribution", IEEE TSE 17(9), 1991.
func newAlias(values []int, probs []float64) alias {
	n := len(values)
	t := make(alias, n)
	scaled := make([]float64, n)
	var small, large []int
	for i, p := range probs {
		scaled[i] = p * float64(n)
		if scaled[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		t[s] = aliasColumn{thresh: threshold(scaled[s]), keep: values[s], other: values[l]}
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// What is left has probability 1 up to rounding.
	for _, i := range append(small, large...) {
		t[i] = aliasColumn{thresh: math.MaxUint64, keep: values[i], other: values[i]}
	}
	return t
}

// threshold is p (in [0, 1]) as a fraction of 2^64.
func threshold(p float64) uint64 {
	v := max(p, 0) * 0x1p64
	if !(v < 0x1p64) {
		return math.MaxUint64
	}
	return uint64(v)
}

// next draws a column and a side from one 64-bit word: the high half of
// u*n picks the column (Lemire's multiply-shift), the low half is uniform
// within it.
func (t alias) next(r *rand.Rand) int {
	col, frac := bits.Mul64(r.Uint64(), uint64(len(t)))
	c := &t[col]
	if frac < c.thresh {
		return c.keep
	}
	return c.other
}
