package keygen

import (
	"math/rand/v2"
	"sync/atomic"
)

// SequentialGen walks the key space in order, start, start+stride, ...,
// wrapping modulo n. It ignores the random source. A generator shared by
// workers hands out each index once per lap (atomic counter, no lock);
// giving worker w of W its own NewSequential(n, w, W) partitions the key
// space reproducibly instead, which is how a preload should use it.
type SequentialGen struct {
	n      int64
	start  int64
	stride int64
	next   atomic.Int64
}

// NewSequential returns a sequential generator over [0, n), n >= 1, starting at
// start and advancing by stride (both taken modulo n; stride < 1 means 1).
func NewSequential(n, start, stride int64) *SequentialGen {
	if stride < 1 {
		stride = 1
	}
	return &SequentialGen{n: n, start: start % n, stride: stride}
}

// Next returns the next index in [0, n).
func (s *SequentialGen) Next(*rand.Rand) int64 {
	i := s.next.Add(1) - 1
	// Reduce before multiplying so long runs cannot overflow.
	return (s.start + (i%s.n)*(s.stride%s.n)) % s.n
}
