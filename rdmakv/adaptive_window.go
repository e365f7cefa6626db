package rdmakv

import (
	"math"
	"slices"
	"sync/atomic"
)

// sampleRing keeps the last len(buf) latencies of one class and protocol.
// A sample is one word, latency and time together, so recording is an
// atomic add and an atomic store, with no lock for many goroutines to
// meet on; a reader may see a slot a writer is about to overwrite, which
// only swaps one fresh sample for another.
type sampleRing struct {
	n   atomic.Uint64 // samples recorded so far; the next goes at n&mask
	buf []atomic.Uint64
}

// maxAdaptiveSamples bounds a ring: a window is sorted at each
// evaluation.
const maxAdaptiveSamples = 4096

func newSampleRing(n int) sampleRing {
	size := 1
	for size < n {
		size <<= 1
	}
	return sampleRing{buf: make([]atomic.Uint64, size)}
}

// add records a latency of lat ns taken at ms, the policy's millisecond
// clock. A latency is kept in 32 bits, up to 4.29 s, longer than any
// request a client lets run by default; 0 marks an empty slot, so the
// least is 1.
func (r *sampleRing) add(lat int64, ms uint32) {
	lat = min(max(lat, 1), math.MaxUint32)
	i := r.n.Add(1) - 1
	r.buf[i&uint64(len(r.buf)-1)].Store(uint64(lat)<<32 | uint64(ms))
}

// recent appends to dst[:0] the latencies taken within window ms of now,
// sorted. Ages are counted modulo 2^32 ms (49 days): a sample that old,
// of a class idle since, would pass for fresh.
func (r *sampleRing) recent(dst []uint32, now, window uint32) []uint32 {
	dst = dst[:0]
	for i := range r.buf {
		w := r.buf[i].Load()
		if lat := uint32(w >> 32); lat != 0 && now-uint32(w) <= window {
			dst = append(dst, lat)
		}
	}
	slices.Sort(dst)
	return dst
}

// median of sorted latencies; 0 for none.
func median(s []uint32) uint32 {
	switch n := len(s); {
	case n == 0:
		return 0
	case n%2 == 1:
		return s[n/2]
	default:
		return uint32((uint64(s[n/2-1]) + uint64(s[n/2])) / 2)
	}
}

// lowerZ is the Mann-Whitney U statistic that a's values tend to lie
// below b's, both sorted, as a z-score under the normal approximation
// (without the correction for ties, rare in nanosecond latencies): above
// adaptiveZ, a is the smaller at p < 0.01, one-sided. The count walks both
// once, so a window costs its sort and no more.
func lowerZ(a, b []uint32) float64 {
	var u float64  // pairs (x of a, y of b) with x < y, ties counting half
	lo, hi := 0, 0 // b[:lo] < x, b[:hi] <= x
	for _, x := range a {
		for lo < len(b) && b[lo] < x {
			lo++
		}
		for hi < len(b) && b[hi] <= x {
			hi++
		}
		u += float64(len(b)-hi) + float64(hi-lo)/2
	}
	n1, n2 := float64(len(a)), float64(len(b))
	sd := math.Sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
	if sd == 0 {
		return 0
	}
	return (u - n1*n2/2) / sd
}

// adaptiveZ is the one-sided normal quantile of p = 0.01.
const adaptiveZ = 2.326
