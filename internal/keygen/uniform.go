package keygen

import "math/rand/v2"

// UniformGen draws every index in [0, n) with equal probability.
type UniformGen struct{ n int64 }

// NewUniform returns a uniform generator over [0, n); n must be >= 1.
func NewUniform(n int64) *UniformGen { return &UniformGen{n: n} }

// Next returns an index in [0, n).
func (u *UniformGen) Next(r *rand.Rand) int64 { return r.Int64N(u.n) }
