package report

import (
	"fmt"
	"slices"

	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/units"
)

// crossing is what a sweep's cells of one op say about the protocols:
// at each value size both were measured at, the median, lowest and
// highest p50 of each protocol's cells across the thresholds.
type crossing struct {
	op    string
	eager plot.Curve
	rdv   plot.Curve
	// from is the smallest compared size from which rendezvous's median
	// p50 is below eager's at every larger compared size (0: none), at
	// index at of the curves.
	from, at int
	// doubt says some cell of the op's sweep is not to be trusted.
	doubt bool
}

// crossings are the run's ops whose fixed-size rdmakv cells measured
// both protocols at one value size or more, by op.
func crossings(run *results.Run) []crossing {
	var out []crossing
	for _, op := range plot.Ops(run) {
		if x, ok := crossingOf(run.Cells, op); ok {
			out = append(out, x)
		}
	}
	return out
}

func crossingOf(cells []results.Cell, op string) (crossing, bool) {
	p50s := map[string]map[int][]float64{"eager": {}, "rendezvous": {}}
	x := crossing{op: op, eager: plot.Curve{Name: "eager"}, rdv: plot.Curve{Name: "rendezvous"}}
	for _, c := range cells {
		by, ok := p50s[c.Protocol]
		if !ok || c.Op != op || c.Distribution != "" || c.Baseline() || c.Threshold == results.AdaptiveThreshold || c.Count == 0 {
			continue
		}
		by[c.ValueSize] = append(by[c.ValueSize], float64(c.Latency.P50))
		x.doubt = x.doubt || distrust(c) != ""
	}
	var sizes []int
	for s := range p50s["eager"] {
		if len(p50s["rendezvous"][s]) > 0 {
			sizes = append(sizes, s)
		}
	}
	if len(sizes) == 0 {
		return x, false
	}
	slices.Sort(sizes)
	for _, s := range sizes {
		addPoint(&x.eager, s, p50s["eager"][s])
		addPoint(&x.rdv, s, p50s["rendezvous"][s])
	}
	x.at = len(sizes)
	for i := len(sizes) - 1; i >= 0 && x.rdv.Mid[i] < x.eager.Mid[i]; i-- {
		x.at, x.from = i, sizes[i]
	}
	return x, true
}

// addPoint puts the median and range of p50s at size on c.
func addPoint(c *plot.Curve, size int, p50s []float64) {
	iv := stats.Spread(p50s)
	c.Sizes, c.Mid, c.Lo, c.Hi = append(c.Sizes, size), append(c.Mid, iv.Est), append(c.Lo, iv.Lo), append(c.Hi, iv.Hi)
}

// words say what the crossing shows, in one sentence.
func (x crossing) words() string {
	sizes := x.eager.Sizes
	lo, hi := units.Bytes(int64(sizes[0])), units.Bytes(int64(sizes[len(sizes)-1]))
	var s string
	switch {
	case x.from == 0:
		s = fmt.Sprintf("%s: eager's p50 is not above rendezvous's at the largest size both were measured at, %s: no crossover within the %s compared (%s to %s)",
			x.op, hi, units.Plural(len(sizes), "size"), lo, hi)
	case x.at == 0:
		s = fmt.Sprintf("%s: rendezvous's p50 is below eager's at every size both were measured at (%s to %s): the crossover lies at or below %s",
			x.op, lo, hi, lo)
	default:
		below := units.Bytes(int64(sizes[x.at-1]))
		s = fmt.Sprintf("%s: rendezvous's p50 is below eager's from %s on (%s against %s there), eager's is not at %s: a threshold above %s and at most %s sends each size by the faster protocol as measured",
			x.op, units.Bytes(int64(x.from)), units.Duration(x.rdv.Mid[x.at]), units.Duration(x.eager.Mid[x.at]), below, below, units.Bytes(int64(x.from)))
	}
	if x.doubt {
		s += "; some of its cells are not to be trusted (marked in the cells table)"
	}
	return s
}

// figure draws the two protocols' p50 against value size, the spread
// across thresholds as error bars and the crossing marked.
func (x crossing) figure() (*plot.Figure, error) {
	f, err := plot.Crossover(x.op, "p50 of each protocol across the sweep's thresholds", plot.Quantity{Label: "p50 latency (median across thresholds)"},
		[]plot.Curve{x.eager, x.rdv}, x.from, 0)
	if f != nil {
		f.Name = "crossover-" + x.op
	}
	return f, err
}
