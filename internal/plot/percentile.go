package plot

import (
	"math"
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"gonum.org/v1/plot/plotter"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// stepsPerNine is how many points each added nine (90%->99%) gets.
const stepsPerNine = 10

// PercentilePoints is the HdrHistogram percentile curve of h: x = 1/(1-p),
// y = latency at p, from p = 0 up to the last percentile the sample count
// resolves (1 - 1/n), then the maximum at x = n.
func PercentilePoints(h *hdrhistogram.Histogram) plotter.XYs {
	n := h.TotalCount()
	if n == 0 {
		return nil
	}
	var pts plotter.XYs
	for k := 0; ; k++ {
		x := math.Pow(10, float64(k)/stepsPerNine)
		if x >= float64(n) {
			break
		}
		p := 1 - 1/x
		pts = append(pts, plotter.XY{X: x, Y: float64(h.ValueAtQuantile(100 * p))})
	}
	return append(pts, plotter.XY{X: math.Max(float64(n), 1.0001), Y: float64(h.Max())})
}

// Percentiles plots the latency distribution of op at one value size, one
// line per cell (threshold and protocol), in the HdrHistogram style.
func Percentiles(run *results.Run, op string, size int) (*Figure, error) {
	var cells []results.Cell
	for _, c := range run.Cells {
		if c.Op == op && c.ValueSize == size && c.Histogram != "" && c.Count > 0 {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 {
		return nil, nil
	}
	slices.SortFunc(cells, cellOrder)
	p := newPlot(op+" "+units.Bytes(int64(size))+": latency by percentile", "percentile", "latency")
	panel := &Panel{Plot: p}
	lines := make([]plotter.XYs, len(cells))
	maxX, lo, hi := 10.0, math.Inf(1), math.Inf(-1)
	for i, c := range cells {
		h, err := results.CellHistogram(c)
		if err != nil {
			return nil, err
		}
		lines[i] = PercentilePoints(h)
		for _, pt := range lines[i] {
			maxX = math.Max(maxX, pt.X)
			if pt.Y > 0 {
				lo, hi = math.Min(lo, pt.Y), math.Max(hi, pt.Y)
			}
		}
	}
	if math.IsInf(lo, 0) {
		return nil, nil
	}
	percentileAxis(&p.X, maxX)
	logAxis(&p.Y, lo, hi, durationLabel)
	for i, c := range cells {
		name := cellLine(c)
		if err := panel.addLine(name, lines[i], colorAt(i), nil, noGlyphs, true); err != nil {
			return nil, err
		}
	}
	return &Figure{Name: "percentiles-" + op + "-" + sizeName(size), Panels: []*Panel{panel}}, nil
}

func cellOrder(a, b results.Cell) int {
	switch {
	case a.Threshold != b.Threshold:
		return a.Threshold - b.Threshold
	case a.Protocol < b.Protocol:
		return -1
	case a.Protocol > b.Protocol:
		return 1
	}
	return 0
}

// Sizes lists op's value sizes, ascending.
func Sizes(run *results.Run, op string) []int {
	var sizes []int
	for _, c := range run.Cells {
		if c.Op == op && !slices.Contains(sizes, c.ValueSize) {
			sizes = append(sizes, c.ValueSize)
		}
	}
	slices.Sort(sizes)
	return sizes
}
