package results

import (
	"maps"
	"math/bits"
	"sort"

	"github.com/kvbench/kvbench/internal/units"
)

// SizeClass is one power-of-two class of value sizes of a cell whose
// sizes were drawn from a distribution (Cell.Distribution): the cell's
// operations whose value fell in (Class/2, Class] bytes. Class 0 holds the
// operations that moved no value (a delete, a get that found nothing, a
// get that failed), so the classes' counts add up to the cell's Count.
type SizeClass struct {
	Class int64 `json:"class"`
	Count int64 `json:"count"`
	// Bytes are the value bytes the class's successful operations moved.
	Bytes int64 `json:"bytes"`
	P50   int64 `json:"p50_ns"`
	P99   int64 `json:"p99_ns"`
	// Histogram is the class's HdrHistogram of latencies (compressed
	// base64), which lets merge add the ranks' classes exactly.
	Histogram string `json:"histogram"`
}

// SizeMix is what the value sizes of one op at one threshold were, over
// both protocols' cells, each of which carries it: the histogram of the
// sizes by class, the requested law's probability of each class, and how
// the protocols shared the operations and the bytes.
type SizeMix struct {
	// Classes count the operations by size class (SizeClass.Class), the
	// protocols' together, class 0 left out.
	Classes map[int64]int64 `json:"classes"`
	// Law (sets only: the sizes the client sent, each drawn on its own)
	// is the probability of each class under the distribution as the
	// workload states it, before its min and max clamp it; mass it puts
	// beyond the classes (above 1 GiB) is 1 less their sum. Gets find
	// what popular keys hold, so their sizes are not independent draws
	// and get no law to be held against.
	Law map[int64]float64 `json:"law,omitempty"`
	// Protocols are each protocol's operations and bytes and their shares
	// of the op's (ProtocolShare).
	Protocols map[string]ProtocolShare `json:"protocols"`
}

// ProtocolShare is one protocol's part of an op's operations at one
// threshold.
type ProtocolShare struct {
	Count int64 `json:"count"`
	Bytes int64 `json:"bytes"`
	// Requests and ByteShare are Count and Bytes over all protocols'.
	Requests  float64 `json:"requests"`
	ByteShare float64 `json:"bytes_share"`
}

// MaxClassLog is the log2 of the largest size class: 1 GiB, the largest
// value a distribution may draw.
const MaxClassLog = 30

// ClassOf is the size class of a value of size bytes: the least power of
// two at least size, or 0 for no value (size <= 0).
func ClassOf(size int) int64 {
	if size <= 0 {
		return 0
	}
	return 1 << bits.Len(uint(size-1))
}

// SetShares fills each protocol's Requests and ByteShare from the
// protocols' counts and bytes.
func (m *SizeMix) SetShares() {
	var n, b int64
	for _, p := range m.Protocols {
		n, b = n+p.Count, b+p.Bytes
	}
	for k, p := range m.Protocols {
		p.Requests, p.ByteShare = ratio(p.Count, n), ratio(p.Bytes, b)
		m.Protocols[k] = p
	}
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// SortedClasses are the keys of m, ascending.
func SortedClasses[V any](m map[int64]V) []int64 {
	ks := make([]int64, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// Clone is a copy of m that shares nothing with it; nil for nil.
func (m *SizeMix) Clone() *SizeMix {
	if m == nil {
		return nil
	}
	return &SizeMix{Classes: maps.Clone(m.Classes), Law: maps.Clone(m.Law), Protocols: maps.Clone(m.Protocols)}
}

// ClassText names a size class by its sizes: "(2KiB, 4KiB]", "1B", or
// "none" for the operations that moved no value.
func ClassText(k int64) string {
	switch k {
	case 0:
		return "none"
	case 1:
		return "1B"
	}
	return "(" + units.Bytes(k/2) + ", " + units.Bytes(k) + "]"
}
