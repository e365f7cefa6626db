package results

import (
	"errors"
	"fmt"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/kvbench/kvbench/internal/units"
)

// Histogram geometry shared by every writer and reader so that histograms
// from different runs, cells and workers merge without loss. One hour covers
// a 64 MiB rendezvous over a slow emulated link with a deep queue in front of
// it; three significant digits keep 0.1% resolution at every magnitude.
const (
	LowestNs  = 1
	HighestNs = int64(time.Hour)
	SigFigs   = 3
)

// NewHistogram returns an empty latency histogram in nanoseconds with the
// shared geometry.
func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(LowestNs, HighestNs, SigFigs)
}

// EncodeHistogram is the standard compressed base64 form (HISTFAAA...).
func EncodeHistogram(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}

// DecodeHistogram parses the compressed base64 form.
func DecodeHistogram(s string) (*hdrhistogram.Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// Histogram decodes the cell's merged histogram.
func (c *Cell) Hist() (*hdrhistogram.Histogram, error) {
	if c.Histogram == "" {
		return NewHistogram(), nil
	}
	return DecodeHistogram(c.Histogram)
}

// Summarize computes the summary statistics stored in results.json. An empty
// histogram gives all zeros rather than the library's sentinel values.
func Summarize(h *hdrhistogram.Histogram) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
		Min:   h.Min(),
		Mean:  h.Mean(),
		Stdev: h.StdDev(),
		P50:   h.ValueAtQuantile(50),
		P90:   h.ValueAtQuantile(90),
		P99:   h.ValueAtQuantile(99),
		P999:  h.ValueAtQuantile(99.9),
		P9999: h.ValueAtQuantile(99.99),
		Max:   h.Max(),
	}
}

// ErrNoHistogram is returned for a cell recorded without a histogram.
var ErrNoHistogram = errors.New("cell has no histogram")

// CellHistogram decodes a cell's merged latency histogram (nanoseconds);
// unlike Hist, a cell without one is an error, named after the cell.
func CellHistogram(c Cell) (*hdrhistogram.Histogram, error) {
	if c.Histogram == "" {
		return nil, fmt.Errorf("%s: %w", c.Name(), ErrNoHistogram)
	}
	h, err := DecodeHistogram(c.Histogram)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name(), err)
	}
	return h, nil
}

// Name is the cell's name in messages and file names (CellName).
func (c Cell) Name() string { return CellName(c.Store, c.Op, c.ValueSize, c.Threshold, c.Protocol) }

// CellName names a measured cell for messages and file names:
// get/4KiB/t=8KiB/eager for rdmakv's (store rdmakv or ""), a baseline's
// after its store: redis get/64B/t=0B/eager; the adaptive policy's cells
// (threshold -1) get/4KiB/t=adaptive/eager.
func CellName(store, op string, valueSize, threshold int, protocol string) string {
	t := units.Bytes(int64(threshold))
	if threshold == AdaptiveThreshold {
		t = PolicyAdaptive
	}
	name := fmt.Sprintf("%s/%s/t=%s/%s", op, units.Bytes(int64(valueSize)), t, protocol)
	if BaselineStore(store) {
		return store + " " + name
	}
	return name
}
