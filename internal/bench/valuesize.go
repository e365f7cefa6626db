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

// sizer draws value sizes as ValueSize says, and key sizes as KeySize
// does (at version 0), reseeding one source for each draw. It is one
// worker's.
type sizer struct {
	law  sizegen.Distribution
	seed uint64
	src  splitMix
	rng  *rand.Rand
}

func newSizer(law sizegen.Distribution, seed uint64) *sizer {
	s := &sizer{law: law, seed: keygen.SplitMix64(seed ^ 0x5bd1e9955bd1e995)}
	s.rng = rand.New(&s.src)
	return s
}

// size is ValueSize(law, seed, key, version).
func (s *sizer) size(key int64, version uint64) int {
	s.src = splitMix(keygen.SplitMix64(s.seed^uint64(key)) + version*versionStride)
	return s.law.Next(s.rng)
}

// splitMix is the SplitMix64 generator (Steele et al., 2014): its state
// steps by the golden gamma and each output is the state's finalizer. A
// draw reseeds it with one assignment, where rand.PCG's stream would need
// hashing into two words and a 128-bit multiply per output; a law draws
// one or two outputs, where SplitMix64's quality is a hash's.
type splitMix uint64

// versionStride spaces the seeds of one key's versions: odd, so distinct
// versions seed distinctly, and unrelated to the gamma, so that one
// version's stream does not run into the next one's.
const versionStride = 0xd1b54a32d192ed03

// Uint64 is the next output: keygen.SplitMix64 steps its input by the
// gamma before finalizing it.
func (s *splitMix) Uint64() uint64 {
	x := uint64(*s)
	*s += 0x9e3779b97f4a7c15
	return keygen.SplitMix64(x)
}
