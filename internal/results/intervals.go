package results

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// fullIntervals sorts a cell's interval histograms of a phase that began
// at start into its full intervals, c.IntervalNs long each: out[k] holds
// what completed in interval k, merged when several protocols' logs
// share it (an adaptive cell), nil when nothing completed in it. The
// last interval, cut short by the end of the phase, is left out.
func fullIntervals(c Cell, start time.Time, intervals []*hdrhistogram.Histogram) []*hdrhistogram.Histogram {
	if c.IntervalNs <= 0 {
		return nil
	}
	lenMs := max(c.IntervalNs/int64(time.Millisecond), 1)
	out := make([]*hdrhistogram.Histogram, c.DurationNs/c.IntervalNs)
	for _, h := range intervals {
		k := (h.StartTimeMs() - start.UnixMilli()) / lenMs
		switch {
		case k < 0 || k >= int64(len(out)) || h.TotalCount() == 0:
		case out[k] == nil:
			out[k] = h
		default:
			m := NewHistogram()
			m.Merge(out[k])
			m.Merge(h)
			out[k] = m
		}
	}
	return out
}

// count is the operations h holds, 0 for a nil h.
func count(h *hdrhistogram.Histogram) float64 {
	if h == nil {
		return 0
	}
	return float64(h.TotalCount())
}
