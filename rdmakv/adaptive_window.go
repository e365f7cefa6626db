package rdmakv

import (
	"math"
	"sync/atomic"
)

// sampleRing keeps latencies of one class and protocol: one in every
// `every` of those offered, the last len(buf) of them. A sample is one
// word, latency and time together, so recording is atomic adds and an
// atomic store, with no lock for many goroutines to meet on; a reader may
// see a slot a writer is about to overwrite, which only swaps one fresh
// sample for another.
type sampleRing struct {
	n     atomic.Uint64 // samples offered so far
	kept  atomic.Uint64 // samples kept so far; the next goes at kept&mask
	every atomic.Uint64 // keeps one sample in every (0 and 1: all); see stride
	buf   []atomic.Uint64
	// strideN and strideMS are n and the time when stride last set every.
	strideN  uint64
	strideMS uint32
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

// add offers a latency of lat ns taken at ms, the policy's millisecond
// clock, and keeps it if it is the one in every. A latency is kept in 32
// bits, up to 4.29 s, longer than any request a client lets run by
// default; 0 marks an empty slot, so the least is 1.
func (r *sampleRing) add(lat int64, ms uint32) {
	i := r.n.Add(1)
	if e := r.every.Load(); e > 1 && mix64(i)%e != 0 {
		return
	}
	lat = min(max(lat, 1), math.MaxUint32)
	k := r.kept.Add(1) - 1
	r.buf[k&uint64(len(r.buf)-1)].Store(uint64(lat)<<32 | uint64(ms))
}

// stride sets every so that the ring keeps about half its length of
// samples a window, from the rate samples were offered at since the
// last time it did (at least a quarter window before ms); the class's
// evaluation calls it, under its lock. Otherwise a class's busy protocol
// would fill its ring in a fraction of the window and be judged on its
// last few milliseconds, which a burst of large requests or a stalled
// core decides, against its explored protocol's whole window: the
// judgments flicker, and a class that should switch seldom passes half a
// dwell of them in a row. The kept samples are a pseudo-random one in
// every (mix64), not every n-th, which a workload of that period would
// alias with.
func (r *sampleRing) stride(ms, window uint32) {
	if ms-r.strideMS < window/4 {
		return
	}
	n := r.n.Load()
	perWindow := (n - r.strideN) * uint64(window) / uint64(ms-r.strideMS)
	r.strideN, r.strideMS = n, ms
	r.every.Store(max(perWindow/uint64(len(r.buf)/2), 1))
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

// trimmed is the mean of sorted latencies s without the adaptiveTrim
// share at each end (rounded up: a window of the fewest samples a class
// is judged on loses one at each end), and what Yuen's test needs of it:
// its squared standard error, from the winsorized variance. 0, 0 for
// none.
func trimmed(s []uint32) (mean, se2 float64) {
	n := len(s)
	if n == 0 {
		return 0, 0
	}
	g := min(int(math.Ceil(adaptiveTrim*float64(n))), (n-1)/2)
	h := n - 2*g
	for _, x := range s[g : n-g] {
		mean += float64(x)
	}
	mean /= float64(h)
	if h < 2 {
		return mean, 0
	}
	// The winsorized sample: the g least raised to s[g], the g largest
	// lowered to s[n-g-1].
	var wm, wv float64
	for i := range s {
		wm += float64(s[min(max(i, g), n-g-1)])
	}
	wm /= float64(n)
	for i := range s {
		d := float64(s[min(max(i, g), n-g-1)]) - wm
		wv += d * d
	}
	return mean, wv / float64(h*(h-1))
}

// lowerT is Yuen's t statistic that a's cost (judged.cost, with the
// charges when after is set) lies below b's: above adaptiveT, it does at
// p < 0.01, one-sided. Yuen's test is Welch's on trimmed means: it does
// not assume the two protocols' variances equal, which they seldom are,
// and a few latencies a thousand times the rest (a stalled host, a
// request queued behind a megabyte) neither decide it nor, as they do a
// plain mean's, drown a difference the other nine in ten of the samples
// show.
func lowerT(a, b judged, after bool) float64 {
	ma, da := a.cost(after)
	mb, db := b.cost(after)
	se := math.Sqrt(da + db)
	if se == 0 {
		return 0
	}
	return (mb - ma) / se
}

const (
	// adaptiveTrim is the share of each end of a window that its
	// trimmed mean leaves out: more than the stalls of a loaded host
	// (1-3% of the samples over loopback TCP at four connections), less
	// than a tail a protocol's own cost makes.
	adaptiveTrim = 0.05
	// adaptiveT is Student's t quantile for p = 0.01, one-sided, at 9
	// degrees of freedom, the fewest Yuen's test has with
	// adaptiveMinSamples of each protocol (10 left of 12 after
	// trimming): with more it is conservative.
	adaptiveT = 2.821
)
