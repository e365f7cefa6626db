package compare

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/units"
)

// MinClassCount is the fewest operations a size class needs on each side
// for its p50 and p99 to be judged: below it the class's p99 is a handful
// of operations, and its change is shown unjudged ("?").
const MinClassCount = 100

// ClassDiff is one size class of a matched mixed cell (results.SizeClass):
// its operations on each side and its p50 and p99 compared. Classes are
// shown beside the cells and never count in the verdict or a regression
// check: a mixed cell has a dozen, and the cell's own metrics and the
// whole workload's already judge what they add up to.
type ClassDiff struct {
	Key     Key      `json:"cell"`
	Class   int64    `json:"class"`
	CountA  int64    `json:"count_a"`
	CountB  int64    `json:"count_b"`
	Metrics []Metric `json:"metrics"`
}

// classDiffs compares the size classes both sides of a matched cell have,
// each side's runs' class histograms merged: p50 and p99 with the
// order-statistic intervals of one run, judged when each side has
// MinClassCount operations in the class, and with several runs a side
// shown unjudged (pooled runs hide the run-to-run noise the cells are
// judged by).
func classDiffs(key Key, as, bs []results.Cell, minEffect float64) ([]ClassDiff, error) {
	ha, err := classHists(as)
	if err != nil {
		return nil, err
	}
	hb, err := classHists(bs)
	if err != nil {
		return nil, err
	}
	var out []ClassDiff
	for _, k := range results.SortedClasses(ha) {
		a, b := ha[k], hb[k]
		if b == nil {
			continue
		}
		d := ClassDiff{Key: key, Class: k, CountA: a.TotalCount(), CountB: b.TotalCount()}
		judged := len(as) == 1 && len(bs) == 1 && min(d.CountA, d.CountB) >= MinClassCount
		for _, q := range []struct {
			name string
			q    float64
		}{{"p50", 0.50}, {"p99", 0.99}} {
			m := Metric{Name: q.name, A: stats.QuantileCI(a, q.q), B: stats.QuantileCI(b, q.q), Known: judged,
				Method: "order-statistic CI from the class's histogram"}
			if !judged {
				m.Method, m.Informational = classUnjudged(len(as), len(bs)), len(as) > 1 || len(bs) > 1
			}
			d.Metrics = append(d.Metrics, judge(m, minEffect))
		}
		out = append(out, d)
	}
	return out, nil
}

// classUnjudged says why a class's change is not judged.
func classUnjudged(runsA, runsB int) string {
	if runsA > 1 || runsB > 1 {
		return "several runs a side, histograms pooled: not judged"
	}
	return fmt.Sprintf("fewer than %d operations a side: not judged", MinClassCount)
}

// classHists merges the runs' histograms of each size class of a cell.
func classHists(cells []results.Cell) (map[int64]*hdrhistogram.Histogram, error) {
	out := map[int64]*hdrhistogram.Histogram{}
	for _, c := range cells {
		for _, k := range c.SizeClasses {
			h, err := results.DecodeHistogram(k.Histogram)
			if err != nil {
				return nil, fmt.Errorf("%s size class %d: %w", c.Name(), k.Class, err)
			}
			if out[k.Class] == nil {
				out[k.Class] = results.NewHistogram()
			}
			out[k.Class].Merge(h)
		}
	}
	return out, nil
}

// withWhole are cells and, after them, the whole workload of each
// threshold of their mixed cells (results.WholeCells), which compare
// judges as it judges the cells.
func withWhole(cells []results.Cell) ([]results.Cell, error) {
	whole, err := results.WholeCells(cells)
	if err != nil {
		return nil, err
	}
	return append(slices.Clip(cells), whole...), nil
}

func orderClasses(x, y ClassDiff) int {
	return cmp.Or(orderKeys(x.Key, y.Key), cmp.Compare(x.Class, y.Class))
}

// writeClasses writes the size classes' table, when the cells have any.
func (r *Result) writeClasses(w io.Writer) error {
	if len(r.SizeClasses) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n%s:\n", classesTitle)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, row := range r.classRows() {
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	return tw.Flush()
}

// classesTitle heads the size classes' table.
var classesTitle = fmt.Sprintf("size classes of the mixed cells (? fewer than %d operations a side; shown, never in the verdict)", MinClassCount)

// classRows are the size classes' table, its header first.
func (r *Result) classRows() [][]string {
	rows := [][]string{{"op", "value", "threshold", "protocol", "class", "count A", "count B", "p50 A", "p50 B", "Δp50", "p99 A", "p99 B", "Δp99"}}
	for _, d := range r.SizeClasses {
		row := append(d.Key.columns(), results.ClassText(d.Class), strconv.FormatInt(d.CountA, 10), strconv.FormatInt(d.CountB, 10))
		for _, m := range d.Metrics {
			row = append(row, units.Duration(m.A.Est), units.Duration(m.B.Est), m.delta())
		}
		rows = append(rows, row)
	}
	return rows
}
