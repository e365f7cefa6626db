package report

import (
	"errors"
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/kvbench/kvbench/internal/results"
)

// ErrNoHistogram is returned for a cell recorded without a histogram.
var ErrNoHistogram = errors.New("cell has no histogram")

// Histogram decodes a cell's merged latency histogram (nanoseconds).
func Histogram(c results.Cell) (*hdrhistogram.Histogram, error) {
	if c.Histogram == "" {
		return nil, fmt.Errorf("%s: %w", CellName(c), ErrNoHistogram)
	}
	h, err := results.DecodeHistogram(c.Histogram)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CellName(c), err)
	}
	return h, nil
}

// CellName names a cell for messages and file names: get/4KiB/t=8KiB/eager.
func CellName(c results.Cell) string {
	return fmt.Sprintf("%s/%s/t=%s/%s", c.Op, Bytes(int64(c.ValueSize)), Bytes(int64(c.Threshold)), c.Protocol)
}
