package bench

import (
	"math/rand/v2"

	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/sizegen"
)

// ValueSize is the size of the value a run with seed writes to key index
// key at version when its values' sizes follow law (Config.Sizes): law's
// draw from a random source seeded by a hash of (seed, key, version). It
// is a pure function, so a value's size is known wherever its key and
// version are, and the sizes a run writes are the same whatever the order
// of its operations. The preload writes each key at version 0; a set
// writes the version it carries (verify mode: the worker's next
// version), or else the worker's count of its sets, numbered across the
// workers so that no two draw alike.
//
// Workers draw through a sizer of their own, which does not allocate.
func ValueSize(law sizegen.Distribution, seed uint64, key int64, version uint64) int {
	return newSizer(law, seed).size(key, version)
}

// sizer draws value sizes as ValueSize says, reseeding one source for
// each draw. It is one worker's.
type sizer struct {
	law  sizegen.Distribution
	seed uint64
	src  rand.PCG
	rng  *rand.Rand
}

func newSizer(law sizegen.Distribution, seed uint64) *sizer {
	s := &sizer{law: law, seed: keygen.SplitMix64(seed ^ 0x5bd1e9955bd1e995)}
	s.rng = rand.New(&s.src)
	return s
}

// size is ValueSize(law, seed, key, version).
func (s *sizer) size(key int64, version uint64) int {
	k := keygen.SplitMix64(s.seed ^ uint64(key))
	s.src.Seed(k, keygen.SplitMix64(k^keygen.SplitMix64(version)))
	return s.law.Next(s.rng)
}
