package rdmakv

import (
	"math"
	"math/bits"
)

// SizeClass is a power-of-two class of a request's key plus value bytes,
// the sum the eager threshold is compared with and the classes
// WithAdaptiveThreshold chooses by: class k holds 2^(k-1) to 2^k - 1
// bytes, class 0 the empty request. The server counts its requests by
// them (ServerCounters.RequestsBySize), so that what adaptive clients
// choose shows at the server.
type SizeClass uint8

// LastSizeClass is the largest class: a key (under 2^16 bytes) and a
// value (under 2^32) are below 2^33 together. It also holds the larger
// sizes a malformed request may claim, so that counting never goes out of
// range.
const LastSizeClass SizeClass = 33

// SizeClassOf is the class of a request of n bytes of key plus value.
func SizeClassOf(n uint64) SizeClass {
	return SizeClass(min(bits.Len64(n), int(LastSizeClass)))
}

// Lower is the class's smallest size.
func (k SizeClass) Lower() int64 { return 1 << k >> 1 }

// Upper bounds the class: its sizes are below it. The last class's is
// math.MaxInt64, as it holds every larger size.
func (k SizeClass) Upper() int64 {
	if k >= LastSizeClass {
		return math.MaxInt64
	}
	return 1 << k
}
