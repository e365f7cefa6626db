package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
)

// WriteSummary prints the summary format: the perftest-style table kvbench
// run prints and keeps as summary.txt, one row per cell in the order the
// cells ran, latencies in microseconds. "misses" counts not_found answers,
// "errors" the failures (results.Cell.Failures), so the two never overlap.
// When any cell has CPU figures, cpu_c and cpu_s are the client's and the
// server's CPU time per operation of the cell's measure phase ("-": not
// measured; "proc": the server ran inside kvbench, whose CPU in cpu_c is
// both sides', as a note under the table says). When a cell has warnings,
// a "!" column marks it and the warnings follow the table.
func WriteSummary(w io.Writer, run *results.Run) error {
	whole, err := results.WholeCells(run.Cells)
	if err != nil {
		return err
	}
	var table, b bytes.Buffer
	if err := summaryTable(&table, append(slices.Clip(run.Cells), whole...)); err != nil {
		return err
	}
	// An unmarked row's empty "!" cell would end its line in spaces.
	for line := range strings.Lines(table.String()) {
		b.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
	if c := run.Harness; c != nil {
		fmt.Fprintf(&b, "%s: %s\n", harnessKey, c)
	}
	if n := distributionNote(run.Cells); n != "" {
		fmt.Fprintf(&b, "values: %s\n", n)
		fmt.Fprintf(&b, "%s: %s\n", results.Whole, wholeNote)
	}
	for _, n := range figureNotes(run.Cells, summaryNote) {
		fmt.Fprintf(&b, "%s: %s\n", n[0], n[1])
	}
	if lines := warningLines(run.Cells); len(lines) > 0 {
		fmt.Fprintf(&b, "warnings (cells marked !; docs/USAGE.md says what each means):\n  %s\n", strings.Join(lines, "\n  "))
	}
	if lines := checkLines(run.Cells); len(lines) > 0 {
		fmt.Fprintf(&b, "checks (docs/TRUST.md says what each means):\n  %s\n", strings.Join(lines, "\n  "))
	}
	if v := run.Verify; v.Checked > 0 || v.Mismatches+v.Missing+v.Torn > 0 {
		fmt.Fprintf(&b, "verify: %d checked, %d mismatches, %d missing, %d torn\n", v.Checked, v.Mismatches, v.Missing, v.Torn)
	}
	fmt.Fprintf(&b, "end: %s\n", run.EndReason)
	_, err = w.Write(b.Bytes())
	return err
}

// summaryTable writes the summary's rows under their header, aligned.
func summaryTable(b *bytes.Buffer, cells []results.Cell) error {
	warned := slices.ContainsFunc(cells, func(c results.Cell) bool { return len(c.Warnings) > 0 })
	figs := shown(cells)
	tw := tabwriter.NewWriter(b, 0, 0, 1, ' ', tabwriter.AlignRight) // one space: the table fits 120 columns, 145 with cpu
	head := "threshold\tbytes\tprotocol\top\tops\tmisses\terrors\tt_min[us]\tp50[us]\tmean[us]\tp99[us]\tp99.9[us]\tmax[us]\tops/s\tMiB/s\t"
	for _, h := range figureHeads(figs, func(c figure.Column) string { return c.Summary }) {
		head += h + "\t"
	}
	if warned {
		head += "!\t"
	}
	fmt.Fprintln(tw, head)
	for _, c := range cells {
		l := c.Latency
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%.2f\t",
			summaryThreshold(c), c.ValueSize, results.ProtocolLabel(c.Store, c.Protocol), c.Op, c.Count, c.Errors[results.NotFound], c.Failures(),
			us(float64(l.Min)), us(float64(l.P50)), us(l.Mean), us(float64(l.P99)), us(float64(l.P999)), us(float64(l.Max)),
			c.ThroughputOps, c.ThroughputBytes/(1<<20))
		for _, f := range figureCells(c, figs, summaryNum) {
			fmt.Fprint(tw, f, "\t")
		}
		if warned {
			fmt.Fprint(tw, mark(c), "\t")
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func mark(c results.Cell) string {
	if len(c.Warnings) > 0 {
		return "!"
	}
	return ""
}

// summaryThreshold is the cell's threshold in bytes, "-" for a baseline
// store's, which has none.
func summaryThreshold(c results.Cell) string {
	switch {
	case c.Baseline():
		return "-"
	case c.Policy != "":
		return c.Policy
	}
	return strconv.Itoa(c.Threshold)
}

func us(ns float64) string { return fmt.Sprintf("%.2f", ns/1e3) }
