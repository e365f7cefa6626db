package figure

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// Adaptive (an adaptive cell) is what the clients' policy chose for the
// cell's op over its measure phase, interval by interval
// (results.AdaptiveTimeline). Each rank's clients choose on their own,
// and the ranks start their measure phases at one meeting: the merge
// sums the ranks' requests per class and interval, interval i of every
// rank together, and takes the median of the ranks' thresholds (the lower
// of the middle two), as each rank's is of its connections'. Report notes
// each op's threshold at the phase's start and end; plot draws it over
// the phase with each class's eager share beneath.
var Adaptive = Figure{
	Name:  "adaptive",
	Unit:  Bytes,
	Has:   func(c results.Cell) bool { return c.Adaptive != nil },
	Merge: Merge{New: func() Merger { return &adaptiveAcc{} }},
	Report: Report{
		Note: adaptiveNote, SummaryNote: adaptiveNote,
		JSON: func(c results.Cell) any { return c.Adaptive },
	},
	Plot: Steps{
		Title: "threshold", SharesTitle: "eager share",
		Level: func(c results.Cell) ([]float64, int64) { return floats(c.Adaptive.Thresholds), c.Adaptive.IntervalNs },
		Shares: func(c results.Cell) []Share {
			var out []Share
			for _, k := range c.Adaptive.Classes {
				out = append(out, Share{Name: classRange(k), Values: eagerShares(k)})
			}
			return out
		},
	},
}

// adaptiveNote says, for each op and value size of an adaptive cell, the
// threshold at the start and the end of its measure phase, how often it
// changed and how often the classes switched.
func adaptiveNote(cells []results.Cell) string {
	var parts []string
	for _, c := range FirstOfOp(cells, func(c results.Cell) bool { return c.Adaptive != nil }) {
		t := c.Adaptive
		var sw uint64
		for _, k := range t.Classes {
			sw += k.Switches
		}
		parts = append(parts, fmt.Sprintf("%s %s: %s to %s, %s, classes switched %s", c.Op, CellSize(c),
			units.Bytes(t.StartThreshold), units.Bytes(t.EndThreshold()), units.Plural(t.Changes(), "change"), units.Plural(int64(sw), "time")))
	}
	if len(parts) == 0 {
		return ""
	}
	return "the adaptive policy's threshold at the measure phase's start and end: " + strings.Join(parts, "; ")
}

// FirstOfOp is the first cell of cells that has a figure (has) for each
// op and value size: the op's eager and rendezvous cells share figures
// such as Adaptive and Sizes.
func FirstOfOp(cells []results.Cell, has func(results.Cell) bool) []results.Cell {
	var out []results.Cell
	for _, c := range cells {
		if has(c) && !slices.ContainsFunc(out, func(o results.Cell) bool {
			return o.Op == c.Op && o.ValueSize == c.ValueSize && o.Distribution == c.Distribution
		}) {
			out = append(out, c)
		}
	}
	return out
}

// CellSize names a cell's values: its size, or a distribution's mean.
func CellSize(c results.Cell) string {
	if c.Distribution != "" {
		return "mean " + units.Bytes(int64(c.ValueSize))
	}
	return units.Bytes(int64(c.ValueSize))
}

// classRange names a class by its bounds: "64B-128B", or "64KiB up" for
// the last.
func classRange(k results.AdaptiveClass) string {
	if k.Upper == 0 {
		return units.Bytes(k.Lower) + " up"
	}
	return units.Bytes(k.Lower) + "-" + units.Bytes(k.Upper)
}

// eagerShares is each interval's share of k's requests that went eager,
// NaN where it had none.
func eagerShares(k results.AdaptiveClass) []float64 {
	out := make([]float64, len(k.Eager))
	for i, e := range k.Eager {
		out[i] = math.NaN()
		if n := e + k.Rendezvous[i]; n > 0 {
			out[i] = float64(e) / float64(n)
		}
	}
	return out
}

func floats(v []int64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// adaptiveAcc is the ranks' timelines of one cell.
type adaptiveAcc struct{ ts []*results.AdaptiveTimeline }

func (a *adaptiveAcc) Add(_ *results.Run, c results.Cell) error {
	if c.Adaptive != nil {
		a.ts = append(a.ts, c.Adaptive)
	}
	return nil
}

func (a *adaptiveAcc) Put(c *results.Cell, _ Job) ([]string, error) {
	c.Adaptive = mergeTimelines(a.ts)
	return nil, nil
}

// mergeTimelines makes one timeline of the ranks' ts (nil for none): as
// long as the longest, each interval's threshold the median of the ranks
// that had the interval, each class's counts their sums.
func mergeTimelines(ts []*results.AdaptiveTimeline) *results.AdaptiveTimeline {
	if len(ts) == 0 {
		return nil
	}
	n := 0
	var starts []int64
	for _, t := range ts {
		n = max(n, len(t.Thresholds))
		starts = append(starts, t.StartThreshold)
	}
	m := &results.AdaptiveTimeline{IntervalNs: ts[0].IntervalNs, StartThreshold: results.LowerMedian(starts)}
	for i := range n {
		var th []int64
		for _, t := range ts {
			if i < len(t.Thresholds) {
				th = append(th, t.Thresholds[i])
			}
		}
		m.Thresholds = append(m.Thresholds, results.LowerMedian(th))
	}
	for _, t := range ts {
		for _, k := range t.Classes {
			addClass(m, k, n)
		}
	}
	return m
}

// addClass adds k's counts to its class in m, made with n intervals if
// new, keeping the classes ascending.
func addClass(m *results.AdaptiveTimeline, k results.AdaptiveClass, n int) {
	i, found := slices.BinarySearchFunc(m.Classes, k.Lower, func(c results.AdaptiveClass, l int64) int { return int(c.Lower - l) })
	if !found {
		m.Classes = slices.Insert(m.Classes, i, results.AdaptiveClass{Lower: k.Lower, Upper: k.Upper,
			Eager: make([]uint64, n), Rendezvous: make([]uint64, n)})
	}
	c := &m.Classes[i]
	for j := range k.Eager {
		c.Eager[j] += k.Eager[j]
		c.Rendezvous[j] += k.Rendezvous[j]
	}
	c.Switches += k.Switches
}
