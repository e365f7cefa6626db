package results

import (
	"fmt"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/units"
)

// Warning kinds.
const (
	// WarnBimodal: the latencies have two modes far apart (Bimodal).
	WarnBimodal = "bimodal"
	// WarnP50FarAboveMin: one operation at a time, yet the median is
	// many times the fastest operation (P50FarAboveMin).
	WarnP50FarAboveMin = "p50_far_above_min"
	// WarnRateSwing: some second ran far slower than the others
	// (RateSwing).
	WarnRateSwing = "rate_swing"
	// WarnDisagreesAcrossThresholds: the same op, size and protocol
	// measured at other thresholds gave a very different median
	// (SiblingWarnings).
	WarnDisagreesAcrossThresholds = "disagrees_across_thresholds"
	// WarnRNRRetransmit: the RDMA device counted RNR NAKs or
	// retransmissions during the cell (RNRRetransmit).
	WarnRNRRetransmit = "rnr_or_retransmit"
	// WarnUntilNotMet: a phase with until ended at its cap, its
	// condition unmet (UntilNotMet).
	WarnUntilNotMet = "until_not_met"
)

// P50MinRatio is how many times its fastest operation a cell's median may
// take when the cell issued one operation at a time. Then every operation
// takes the same path, so the median sits near the minimum: at most 1.8
// times it in every cell of the healthy TCP sweep
// (testdata/threshold-sweep-tcp.json); in an early build's Soft-RoCE sweep
// (testdata/threshold-sweep-rdma.json), whose operations waited on
// retransmission timers, 33 of 120 cells are above 3 times it, up to 99
// times.
const P50MinRatio = 3

// CellWarnings are the warnings a cell earns on its own: Bimodal on its
// histogram, P50FarAboveMin, RateSwing over intervals, its interval
// histograms (what its .hlog holds) of a phase that began at start,
// RNRRetransmit on its device counters, and SizesOffLaw on its sizes. A distribution's cell
// (Cell.Distribution) gets neither Bimodal nor P50FarAboveMin: its
// operations move values of many sizes, so several modes, and a median
// far above the fastest, are what it measures.
func CellWarnings(c Cell, start time.Time, intervals []*hdrhistogram.Histogram) []Warning {
	var out []Warning
	if c.Distribution == "" {
		if h, err := CellHistogram(c); err == nil {
			if w, ok := Bimodal(h); ok {
				out = append(out, w)
			}
		}
		if w, ok := P50FarAboveMin(c); ok {
			out = append(out, w)
		}
	}
	if w, ok := RateSwing(c, start, intervals); ok {
		out = append(out, w)
	}
	if w, ok := RNRRetransmit(c); ok {
		out = append(out, w)
	}
	if w, ok := SizesOffLaw(c.Sizes); ok {
		out = append(out, w)
	}
	if w, ok := UntilNotMet(c); ok {
		out = append(out, w)
	}
	return out
}

// P50FarAboveMin flags a closed-loop cell of one connection at depth 1
// whose p50 exceeds P50MinRatio times its minimum. With more operations in
// flight, queueing behind each other puts the median above the minimum
// by design, so other cells get no verdict.
func P50FarAboveMin(c Cell) (Warning, bool) {
	l := c.Load
	if l.Mode != "closed" || l.Connections*max(l.Depth, 1) != 1 || c.Latency.Min <= 0 {
		return Warning{}, false
	}
	r := float64(c.Latency.P50) / float64(c.Latency.Min)
	if r <= P50MinRatio {
		return Warning{}, false
	}
	return Warning{Kind: WarnP50FarAboveMin, Message: fmt.Sprintf(
		"p50 far above the minimum: p50 %s is %s t_min %s with one operation in flight (over %d× warns)",
		units.Duration(float64(c.Latency.P50)), times(r), units.Duration(float64(c.Latency.Min)), P50MinRatio)}, true
}

// SiblingRatio is how far, as a factor either way, a cell's p50 may lie
// from the median p50 of the same op, size and protocol at the other
// thresholds. The threshold only picks the protocol, so these cells
// measure the same path: in the healthy TCP sweep they agree within a
// factor of 1.41; in the Soft-RoCE sweep the 64 B eager get took 7.46 ms
// at threshold 1 KiB and 46 to 77 µs at the others, and 41 cells lie 2.0
// to 162 times off.
const SiblingRatio = 2

// MinSiblings is how many other thresholds must have measured a cell's op,
// size and protocol before their median is a yardstick for it: with
// fewer, one outlier among them moves the median.
const MinSiblings = 3

// SiblingWarnings compares each cell with its siblings, the cells of the
// same op, value size and protocol at other thresholds, and warns where
// its p50 is more than SiblingRatio times above or below their median
// p50 and it has at least MinSiblings of them. out[i] belongs to cells[i].
// A distribution's cells (Cell.Distribution) have no siblings: each
// threshold gives each protocol other sizes of it.
func SiblingWarnings(cells []Cell) [][]Warning {
	type key struct {
		op, protocol string
		size         int
	}
	groups := map[key][]int{}
	for i, c := range cells {
		if c.Count > 0 && c.Distribution == "" {
			k := key{c.Op, c.Protocol, c.ValueSize}
			groups[k] = append(groups[k], i)
		}
	}
	out := make([][]Warning, len(cells))
	for _, idx := range groups {
		if len(idx)-1 < MinSiblings {
			continue
		}
		for _, i := range idx {
			if w, ok := siblingWarning(cells, i, idx); ok {
				out[i] = append(out[i], w)
			}
		}
	}
	return out
}

// siblingWarning compares cells[i] with the median p50 of the other cells
// named by group.
func siblingWarning(cells []Cell, i int, group []int) (Warning, bool) {
	var p50s []float64
	var at []string
	for _, j := range group {
		if j != i {
			p50s = append(p50s, float64(cells[j].Latency.P50))
			at = append(at, units.Bytes(int64(cells[j].Threshold)))
		}
	}
	med := stats.Median(p50s)
	p50 := float64(cells[i].Latency.P50)
	if med <= 0 || p50 <= 0 || (p50 <= SiblingRatio*med && p50*SiblingRatio >= med) {
		return Warning{}, false
	}
	how := times(p50/med) + " above"
	if p50 < med {
		how = times(med/p50) + " below"
	}
	return Warning{Kind: WarnDisagreesAcrossThresholds, Message: fmt.Sprintf(
		"disagrees across thresholds: p50 %s, %s the median %s at thresholds %s",
		units.Duration(p50), how, units.Duration(med), strings.Join(at, ", "))}, true
}

// times formats a ratio: 4.6×, 127×.
func times(r float64) string {
	if r >= 10 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.1f×", r)
}

// AddWarnings sets every cell's Warnings: its own (CellWarnings), its
// siblings' verdict (SiblingWarnings) and its failed checks
// (CheckWarnings), replacing any it had, so that a run
// rewritten or merged from ranks is judged on what it now holds. The
// checks its own figures decide (CellChecks) are recomputed first, those
// of an earlier pass dropped, since a method that no longer applies
// (too few intervals after a merge) must not linger.
func AddWarnings(cells []CellLog) {
	plain := make([]Cell, len(cells))
	for i, cl := range cells {
		plain[i] = cl.Cell
	}
	sib := SiblingWarnings(plain)
	for i := range cells {
		c := &cells[i].Cell
		iv := policyIntervals(cells, i)
		c.Checks = SetChecks(dropChecks(c.Checks, CheckStationarity, CheckPrecision, CheckTailPrecision), CellChecks(*c, cells[i].Start, iv))
		c.Warnings = append(CellWarnings(*c, cells[i].Start, iv), sib[i]...)
		c.Warnings = append(c.Warnings, CheckWarnings(c.Checks)...)
	}
}

// policyIntervals are the intervals cells[i]'s rates are judged on: its
// own, or for a cell of the adaptive policy those of every protocol of
// its op together. The policy moves requests between the protocols as
// it learns, so each protocol's rate swings by design; the op's does not
// unless the requests stalled.
func policyIntervals(cells []CellLog, i int) []*hdrhistogram.Histogram {
	c := cells[i].Cell
	if c.Policy != PolicyAdaptive {
		return cells[i].Intervals
	}
	var out []*hdrhistogram.Histogram
	for _, o := range cells {
		d := o.Cell
		if d.Store == c.Store && d.Op == c.Op && d.ValueSize == c.ValueSize && d.Distribution == c.Distribution &&
			d.Threshold == c.Threshold && d.Policy == c.Policy {
			out = append(out, o.Intervals...)
		}
	}
	return out
}
