package plot

import (
	"fmt"
	"math"
	"slices"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/plot/plotter"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// The figures of a mixed run (values.distribution): its cells' latency
// by size class, and the whole workload against the threshold.

// Distributions are the laws the run's mixed cells drew their sizes
// from, in the order of their first cells.
func Distributions(run *results.Run) []string {
	var out []string
	for _, c := range run.Cells {
		if c.Distribution != "" && !slices.Contains(out, c.Distribution) {
			out = append(out, c.Distribution)
		}
	}
	return out
}

// distName is a distribution in a file name: its spec's letters and
// digits, the rest dashes ("weighted-64B-70-4KiB-30"), at most 60 bytes.
func distName(dist string) string {
	s := strings.Trim(strings.Join(strings.FieldsFunc(dist, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '.')
	}), "-"), "-.")
	if len(s) > 60 {
		s = strings.TrimRight(s[:60], "-.")
	}
	return s
}

// ClassLatency draws the p50 (above) and p99 (below) of op's operations
// by size class at each threshold of dist, both protocols' operations of
// a class together: one line per threshold against the class's upper
// bound (log2). It is named size-classes-op-dist, and nil when op has no
// size classes of dist.
func ClassLatency(run *results.Run, op, dist string) (*Figure, error) {
	hs, thresholds, err := classHistsByThreshold(run, op, dist)
	if err != nil || len(thresholds) == 0 {
		return nil, err
	}
	var p50, p99 []plotter.XYs
	lo, hi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, th := range thresholds {
		var a, b plotter.XYs
		for _, k := range results.SortedClasses(hs[th]) {
			h := hs[th][k]
			if k <= 0 || h.TotalCount() == 0 {
				continue // no value moved: no size to place it at
			}
			x := float64(k)
			a = append(a, plotter.XY{X: x, Y: float64(h.ValueAtQuantile(50))})
			b = append(b, plotter.XY{X: x, Y: float64(h.ValueAtQuantile(99))})
			lo, hi = math.Min(lo, x), math.Max(hi, x)
			ylo, yhi = math.Min(ylo, float64(h.ValueAtQuantile(50))), math.Max(yhi, float64(h.ValueAtQuantile(99)))
		}
		p50, p99 = append(p50, a), append(p99, b)
	}
	if math.IsInf(lo, 1) {
		return nil, nil
	}
	f := &Figure{Name: "size-classes-" + op + "-" + distName(dist)}
	for _, q := range []struct {
		name string
		pts  []plotter.XYs
	}{{"p50", p50}, {"p99", p99}} {
		p := newPlot(op+": "+q.name+" latency by value size class", "size class (bytes, upper bound, log2)", q.name+" latency")
		byteAxis(&p.X, lo, hi)
		logAxis(&p.Y, ylo, yhi, durationLabel)
		panel := &Panel{Plot: p}
		for i, th := range thresholds {
			if err := panel.addLine("t="+units.Bytes(int64(th)), q.pts[i], colorAt(i), dashes[0], nil, true); err != nil {
				return nil, err
			}
		}
		f.Panels = append(f.Panels, panel)
	}
	return f, nil
}

// classHistsByThreshold are op's size classes of dist by threshold and
// class, the protocols' histograms of a class merged, and the thresholds
// ascending.
func classHistsByThreshold(run *results.Run, op, dist string) (map[int]map[int64]*hdrhistogram.Histogram, []int, error) {
	out := map[int]map[int64]*hdrhistogram.Histogram{}
	var thresholds []int
	for _, c := range run.Cells {
		if c.Op != op || c.Distribution != dist || len(c.SizeClasses) == 0 {
			continue
		}
		if out[c.Threshold] == nil {
			out[c.Threshold] = map[int64]*hdrhistogram.Histogram{}
			thresholds = append(thresholds, c.Threshold)
		}
		for _, k := range c.SizeClasses {
			h, err := results.DecodeHistogram(k.Histogram)
			if err != nil {
				return nil, nil, fmt.Errorf("%s size class %d: %w", c.Name(), k.Class, err)
			}
			if out[c.Threshold][k.Class] == nil {
				out[c.Threshold][k.Class] = results.NewHistogram()
			}
			out[c.Threshold][k.Class].Merge(h)
		}
	}
	slices.Sort(thresholds)
	return out, thresholds, nil
}
