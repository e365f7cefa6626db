package report

import (
	"cmp"
	"fmt"
	"html/template"
	"slices"
	"strings"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// answerBody says what the run answers: for a sweep that measured both
// protocols at a size, where rendezvous overtakes eager; for a mixed
// workload, the whole workload against the threshold. A run that is
// neither is said to be what it measured, and no threshold is claimed.
func answerBody(run *results.Run) ([]template.HTML, error) {
	var body []template.HTML
	for _, x := range crossings(run) {
		f, err := x.figure()
		if err != nil {
			return nil, err
		}
		fig, err := inline(run, f)
		if err != nil {
			return nil, err
		}
		body = append(body, htmlpage.Para(x.words()), fig)
	}
	if len(body) > 0 {
		body = append(body, htmlpage.Para("Each cell is one measurement, not tested for significance: kvbench tune repeats each pair of protocols and decides with a sign test."))
	}
	mixed, err := wholeAnswer(run)
	if err != nil {
		return nil, err
	}
	body = append(body, mixed...)
	if len(body) == 0 {
		body = append(body, htmlpage.Para(measured(run)))
	}
	return body, nil
}

// wholeAnswer is, per distribution of a mixed run, the best threshold by
// p50, p99 and ops/s of the whole workload, its figure and its rows.
func wholeAnswer(run *results.Run) ([]template.HTML, error) {
	whole, err := results.WholeCells(run.Cells)
	if err != nil {
		return nil, err
	}
	var body []template.HTML
	for _, dist := range plot.Distributions(run) {
		cells := slices.DeleteFunc(slices.Clone(whole), func(c results.Cell) bool { return c.Distribution != dist })
		if len(cells) == 0 {
			continue
		}
		body = append(body, htmlpage.Para(bestWords(dist, cells)))
		f, err := plot.WholeWorkload(run, dist)
		if err != nil {
			return nil, err
		}
		if f != nil {
			fig, err := inline(run, f)
			if err != nil {
				return nil, err
			}
			body = append(body, fig)
		}
		figs := shown(cells)
		body = append(body, htmlTable(columns(figs), rowsOf(cells), func(r Row) []string { return humanRow(r, figs) }, rowCell))
	}
	return body, nil
}

// bestWords names the whole workload's best threshold by p50, by p99 and
// by ops/s among cells, which are of one distribution.
func bestWords(dist string, cells []results.Cell) string {
	name := func(c results.Cell) string { return thresholdText(c.Threshold, c.Store, c.Policy) }
	byP50 := slices.MinFunc(cells, func(a, b results.Cell) int { return cmp.Compare(a.Latency.P50, b.Latency.P50) })
	byP99 := slices.MinFunc(cells, func(a, b results.Cell) int { return cmp.Compare(a.Latency.P99, b.Latency.P99) })
	byOps := slices.MaxFunc(cells, func(a, b results.Cell) int { return cmp.Compare(a.ThroughputOps, b.ThroughputOps) })
	return fmt.Sprintf("The whole workload (values %s) at %s: the best threshold by p50 is %s (%s), by p99 %s (%s), by ops/s %s (%s).",
		dist, units.Plural(len(cells), "threshold"), name(byP50), units.Duration(float64(byP50.Latency.P50)),
		name(byP99), units.Duration(float64(byP99.Latency.P99)), name(byOps), units.Rate(byOps.ThroughputOps))
}

// measured says what a run that answers no threshold question measured.
func measured(run *results.Run) string {
	var ops, sizes, ths []string
	for _, c := range sorted(run) {
		ops = appendNew(ops, c.Op)
		sizes = appendNew(sizes, units.Bytes(int64(c.ValueSize)))
		ths = appendNew(ths, thresholdText(c.Threshold, c.Store, c.Policy))
	}
	return fmt.Sprintf("This run compares no protocols at one value size and no thresholds of a mixed workload, so it answers no threshold question. It measured %s: ops %s, value sizes %s, thresholds %s; the cells below give its figures.",
		units.Plural(len(run.Cells), "cell"), strings.Join(ops, ", "), strings.Join(sizes, ", "), strings.Join(ths, ", "))
}

func appendNew(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}
