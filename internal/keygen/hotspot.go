package keygen

import (
	"fmt"
	"math/rand/v2"
)

// HotspotGen sends a fraction of operations (the hot probability) to a
// fraction of the keys (the hot set, indexes [0, hot)), uniformly within
// each set, as YCSB's HotspotIntegerGenerator does.
type HotspotGen struct {
	n, hot int64
	prob   float64
}

// NewHotspot returns a hotspot generator over [0, n): fraction in (0, 1] of
// the keys are hot and receive probability prob in [0, 1] of the draws. The
// hot set has at least one key.
func NewHotspot(n int64, fraction, prob float64) (*HotspotGen, error) {
	if n < 1 {
		return nil, fmt.Errorf("keygen: hotspot item count %d, want >= 1", n)
	}
	if !(fraction > 0 && fraction <= 1) {
		return nil, fmt.Errorf("keygen: hot fraction %v, want 0 < fraction <= 1", fraction)
	}
	if !(prob >= 0 && prob <= 1) {
		return nil, fmt.Errorf("keygen: hot probability %v, want 0 <= p <= 1", prob)
	}
	hot := int64(float64(n) * fraction)
	if hot < 1 {
		hot = 1
	}
	if hot > n {
		hot = n
	}
	return &HotspotGen{n: n, hot: hot, prob: prob}, nil
}

// HotSize is the number of hot keys (indexes [0, HotSize())).
func (h *HotspotGen) HotSize() int64 { return h.hot }

// Next returns an index in [0, n).
func (h *HotspotGen) Next(r *rand.Rand) int64 {
	if h.hot == h.n || r.Float64() < h.prob {
		return r.Int64N(h.hot)
	}
	return h.hot + r.Int64N(h.n-h.hot)
}
