package results

import (
	"fmt"
	"math"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/kvbench/kvbench/internal/units"
)

// Bimodality is judged on the density of log latency, in bins of a
// quarter of an octave (a factor of 1.19): fine enough to resolve two
// modes a factor of 2 apart, coarse enough that a few hundred operations
// fill the bins of a mode.
const binsPerOctave = 4

// BimodalMinOps is the fewest operations a cell needs for a verdict on
// bimodality: a mode of ModeMinShare of them is then at least 20
// operations, too many to come from a handful of stragglers. In 2000
// lognormal draws of 200 operations each, none with a log spread up to
// 1.5 made a second mode; at 100 operations a spread of 1.5 did, 3 times.
const BimodalMinOps = 200

// ModeMinShare is the share of operations within a factor of 2 of a peak
// for it to count as a mode. A 10% mode moves the mean and the upper
// percentiles of a cell by as much as the mode is slow.
const ModeMinShare = 0.10

// ModeMinSeparation is how far apart, as a factor, two peaks must lie.
// Healthy TCP loopback cells (testdata/threshold-sweep-tcp.json) have a
// second hump about 2.4 times above the main peak, from wake-ups on
// another core; the broken cells of an early build's Soft-RoCE sweep
// (testdata/threshold-sweep-rdma.json) have modes 9.5 to 215 times apart
// (50 to 810µs against 5.4 to 13ms).
const ModeMinSeparation = 4

// ValleyMinDepth is how much lower the smoothed density between two peaks
// must be than the smaller of them. Between any two peaks of the healthy
// TCP sweep at least a factor of 2 apart it dips at most 1.1 times; the
// broken Soft-RoCE cells have valleys 5.5 times lower or more, often
// empty.
const ValleyMinDepth = 4

// mode is one peak of a log-latency density.
type mode struct {
	bin   int     // bin index of the peak
	share float64 // share of operations within a factor of 2 of it
}

// Bimodal reports two modes in h's log-latency density, each holding at
// least ModeMinShare of the operations within a factor of 2 of its peak,
// at least ModeMinSeparation apart, with a valley at least ValleyMinDepth
// lower than the smaller between them. A long tail has no second peak and
// is not flagged; a cell of fewer than BimodalMinOps operations gets no
// verdict.
func Bimodal(h *hdrhistogram.Histogram) (Warning, bool) {
	total := h.TotalCount()
	if total < BimodalMinOps {
		return Warning{}, false
	}
	lo, counts := logBins(h)
	dens := smooth(counts)
	sep := int(math.Ceil(math.Log2(ModeMinSeparation) * binsPerOctave))
	best, bestDepth := [2]mode{}, 0.0
	peaks := localMaxima(dens)
	for i, a := range peaks {
		for _, b := range peaks[i+1:] {
			if b-a < sep {
				continue
			}
			v := valley(dens, a, b)
			depth := math.Min(dens[a], dens[b]) / dens[v]
			left := mode{a, share(counts, max(a-binsPerOctave, 0), min(a+binsPerOctave, v-1), total)}
			right := mode{b, share(counts, max(b-binsPerOctave, v+1), b+binsPerOctave, total)}
			if depth >= ValleyMinDepth && left.share >= ModeMinShare && right.share >= ModeMinShare && depth > bestDepth {
				best, bestDepth = [2]mode{left, right}, depth
			}
		}
	}
	if bestDepth == 0 {
		return Warning{}, false
	}
	center := func(bin int) float64 { return math.Exp2((float64(lo+bin) + 0.5) / binsPerOctave) }
	gap := fmt.Sprintf("valley %.0f× lower between them", bestDepth)
	if math.IsInf(bestDepth, 1) {
		gap = "no operations between them"
	}
	return Warning{Kind: WarnBimodal, Message: fmt.Sprintf("bimodal latency: %.0f%% of operations near %s and %.0f%% near %s, %s",
		100*best[0].share, units.Duration(center(best[0].bin)), 100*best[1].share, units.Duration(center(best[1].bin)), gap)}, true
}

// logBins counts h's operations in quarter-octave bins of latency; bin i
// of the result is bin lo+i, covering [2^((lo+i)/4), 2^((lo+i+1)/4)) ns.
func logBins(h *hdrhistogram.Histogram) (lo int, counts []float64) {
	bin := func(v int64) int { return int(math.Floor(math.Log2(float64(max(v, 1))) * binsPerOctave)) }
	lo, hi := bin(h.Min()), bin(h.Max())
	counts = make([]float64, hi-lo+1)
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			i := min(max(bin((b.From+b.To)/2)-lo, 0), hi-lo)
			counts[i] += float64(b.Count)
		}
	}
	return lo, counts
}

// smooth averages each bin with two neighbours either side, weighted
// 1:2:3:2:1 (over 1.25 octaves), so that the sampling noise of a few
// hundred operations in narrow bins makes neither a peak nor a valley.
func smooth(c []float64) []float64 {
	at := func(i int) float64 {
		if i < 0 || i >= len(c) {
			return 0
		}
		return c[i]
	}
	out := make([]float64, len(c))
	for i := range c {
		out[i] = (at(i-2) + 2*at(i-1) + 3*at(i) + 2*at(i+1) + at(i+2)) / 9
	}
	return out
}

// localMaxima are the bins higher than the bin after them and at least as
// high as the one before (of a plateau, its last bin).
func localMaxima(d []float64) []int {
	var out []int
	for i := range d {
		if d[i] > 0 && (i == 0 || d[i] >= d[i-1]) && (i == len(d)-1 || d[i] > d[i+1]) {
			out = append(out, i)
		}
	}
	return out
}

// valley is the lowest bin strictly between a and b.
func valley(d []float64, a, b int) int {
	v := a + 1
	for i := a + 1; i < b; i++ {
		if d[i] < d[v] {
			v = i
		}
	}
	return v
}

// share is the fraction of total in bins from..to, clipped to c.
func share(c []float64, from, to int, total int64) float64 {
	var n float64
	for i := max(from, 0); i <= min(to, len(c)-1); i++ {
		n += c[i]
	}
	return n / float64(total)
}
