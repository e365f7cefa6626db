package rdmakv

import (
	"math"
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

// recent appends to dst[:0] the latencies taken within window ms of now.
// Ages are counted modulo 2^32 ms (49 days): a sample that old, of a
// class idle since, would pass for fresh.
func (r *sampleRing) recent(dst []uint32, now, window uint32) []uint32 {
	dst = dst[:0]
	for i := range r.buf {
		w := r.buf[i].Load()
		if lat := uint32(w >> 32); lat != 0 && now-uint32(w) <= window {
			dst = append(dst, lat)
		}
	}
	return dst
}

// meanVar is the mean of latencies and their sample variance; 0, 0 for
// none, and a variance of 0 for one.
func meanVar(s []uint32) (mean, variance float64) {
	if len(s) == 0 {
		return 0, 0
	}
	for _, x := range s {
		mean += float64(x)
	}
	mean /= float64(len(s))
	if len(s) == 1 {
		return mean, 0
	}
	for _, x := range s {
		d := float64(x) - mean
		variance += d * d
	}
	return mean, variance / float64(len(s)-1)
}

// lowerT is Welch's t statistic that a's mean lies below b's: above
// adaptiveT, it does at p < 0.01, one-sided. Welch's test does not
// assume the two protocols' variances equal, which they seldom are; a
// lone outlier in either window widens its variance, so it weakens the
// test rather than deciding it.
func lowerT(a, b []uint32) float64 {
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	se := math.Sqrt(va/float64(len(a)) + vb/float64(len(b)))
	if se == 0 {
		return 0
	}
	return (mb - ma) / se
}

// adaptiveT is Student's t quantile for p = 0.01, one-sided, at 11
// degrees of freedom, the fewest Welch's test has with adaptiveMinSamples
// of each protocol: with more it is conservative.
const adaptiveT = 2.718
