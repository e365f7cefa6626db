package keygen

import "math/rand/v2"

// ScrambledZipfianGen is zipfian popularity with the popular indexes spread
// over the key space instead of clustered at 0: the zipfian rank is hashed
// (FNV-1a over its 8 bytes, as YCSB does) and reduced mod n. Distinct ranks
// can collide, so the distribution is close to, not exactly, zipfian.
type ScrambledZipfianGen struct {
	z *ZipfianGen
}

// NewScrambledZipfian returns a scrambled zipfian generator over [0, n).
func NewScrambledZipfian(n int64, theta float64) (*ScrambledZipfianGen, error) {
	z, err := NewZipfian(n, theta)
	if err != nil {
		return nil, err
	}
	return &ScrambledZipfianGen{z: z}, nil
}

// Next returns an index in [0, n).
func (s *ScrambledZipfianGen) Next(r *rand.Rand) int64 {
	return int64(fnv64(uint64(s.z.Next(r))) % uint64(s.z.n))
}

func fnv64(v uint64) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < 8; i++ {
		h ^= v & 0xff
		h *= 0x100000001b3
		v >>= 8
	}
	return h
}
