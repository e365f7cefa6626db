// Package keygen draws key indexes from the distributions a workload names
// and formats them as fixed-size keys. The distributions follow YCSB
// (uniform, zipfian, scrambled zipfian, sequential, hotspot, latest), one
// per file.
//
// Randomness is never global: each worker owns a *rand.Rand from NewRand
// seeded by the workload seed and the worker's stream number, so a run is
// reproducible and workers never contend on a shared source.
package keygen

import (
	"fmt"
	"math/rand/v2"
)

// Generator draws key indexes in [0, n). Next must not allocate; apart from
// Sequential (which counts atomically) generators hold no mutable state
// and may be shared by workers, each passing its own *rand.Rand.
type Generator interface {
	Next(r *rand.Rand) int64
}

// Func adapts a function to Generator.
type Func func(r *rand.Rand) int64

// Next calls f(r).
func (f Func) Next(r *rand.Rand) int64 { return f(r) }

// Distribution names accepted by New; the workload schema takes its names
// from here.
const (
	Uniform          = "uniform"
	Zipfian          = "zipfian"
	ScrambledZipfian = "scrambled_zipfian"
	Sequential       = "sequential"
	Hotspot          = "hotspot"
	Latest           = "latest"
)

// Distributions lists every name New accepts.
var Distributions = []string{Uniform, Zipfian, ScrambledZipfian, Sequential, Hotspot, Latest}

// Spec is a key space and the distribution drawn over it, as a workload's
// keys section gives them.
type Spec struct {
	// Count is the number of keys: indexes [0, Count).
	Count int
	// Distribution is one of Distributions.
	Distribution string
	// ZipfianConstant is the skew of zipfian, scrambled_zipfian and latest.
	ZipfianConstant float64
	// HotFraction and HotProbability shape hotspot.
	HotFraction, HotProbability float64
}

// New builds the generator k describes. Latest starts with every key
// inserted (the preload), most recent being the highest index; use
// NewLatest to tie it to a live insert counter.
func New(k Spec) (Generator, error) {
	n := int64(k.Count)
	if n < 1 {
		return nil, fmt.Errorf("keygen: key count %d, want >= 1", k.Count)
	}
	switch k.Distribution {
	case Uniform:
		return NewUniform(n), nil
	case Zipfian:
		return NewZipfian(n, k.ZipfianConstant)
	case ScrambledZipfian:
		return NewScrambledZipfian(n, k.ZipfianConstant)
	case Sequential:
		return NewSequential(n, 0, 1), nil
	case Hotspot:
		return NewHotspot(n, k.HotFraction, k.HotProbability)
	case Latest:
		c := new(Counter)
		c.Store(n)
		return NewLatest(n, k.ZipfianConstant, c)
	}
	return nil, fmt.Errorf("keygen: unknown distribution %q (want one of %v)", k.Distribution, Distributions)
}

// NewRand returns a PCG-backed source for one worker. Seed and stream are
// each passed through SplitMix64 so that neighbouring seeds and streams
// (seed 1 stream 0 vs seed 0 stream 1) give unrelated sequences.
func NewRand(seed uint64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(SplitMix64(seed), SplitMix64(stream^0x6a09e667f3bcc909)))
}

// SplitMix64 is the finalizer of SplitMix64 (Steele et al., 2014):
// neighbouring inputs give unrelated outputs.
func SplitMix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
