package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// Formats lists the accepted --format values.
var Formats = []string{"table", "json", "html"}

// Write renders the comparison in format; html, which draws the runs'
// figures and links their files, is WriteHTML's.
func (r *Result) Write(w io.Writer, format string) error {
	switch format {
	case "html":
		return errors.New("compare: the html format needs the runs compared: WriteHTML")
	case "table":
		return r.writeTable(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

// delta prints the change with a mark: "*" significant, "?" no noise
// estimate, nothing when within noise or below the minimum effect, or
// informational.
func (m Metric) delta() string {
	s := fmt.Sprintf("%+.1f%%", 100*m.Change)
	switch {
	case m.Significant:
		s += " *"
	case !m.Known && !m.Informational:
		s += " ?"
	}
	return s
}

// column is one metric's columns in the table: A, B and the change.
type column struct {
	name string
	// figure names the figure whose informational metric it is; empty
	// for the metrics judged (CellDiff.Metrics).
	figure string
	// text prints A and B.
	text func(float64) string
}

// coreColumns are the metrics every cell has.
var coreColumns = []column{{name: "p50", text: units.Duration}, {name: "p99", text: units.Duration}, {name: "ops/s", text: units.Rate}}

// columns are the table's metric columns, p50, p99 and ops/s, then each
// declared figure's that some cell has, and the notes explaining those.
func (r *Result) columns() (cols []column, notes []string) {
	cols = slices.Clone(coreColumns)
	for _, f := range figure.All() {
		if f.Compare == nil || !r.hasFigure(f) {
			continue
		}
		for _, name := range f.Compare.Names {
			c := column{name: name, figure: f.Name, text: f.Text}
			if f.Compare.Tested {
				c.figure = ""
			}
			cols = append(cols, c)
		}
		if f.Compare.Note != "" {
			notes = append(notes, f.Compare.Note)
		}
	}
	return cols, notes
}

// hasFigure says whether some cell has metrics of f, which then get
// columns.
func (r *Result) hasFigure(f figure.Figure) bool {
	for _, c := range r.Cells {
		if _, ok := c.Figure(f.Name); ok {
			return true
		}
		for _, name := range f.Compare.Names {
			if f.Compare.Tested && slices.ContainsFunc(c.Metrics, func(m Metric) bool { return m.Name == name }) {
				return true
			}
		}
	}
	return false
}

// metric is the cell's metric of column col.
func (c CellDiff) metric(col column) (Metric, bool) {
	ms := c.Metrics
	if col.figure != "" {
		d, _ := c.Figure(col.figure)
		ms = d.Metrics
	}
	i := slices.IndexFunc(ms, func(m Metric) bool { return m.Name == col.name })
	if i < 0 {
		return Metric{}, false
	}
	return ms[i], true
}

// row is the cell's row of the table: its key, then A, B and the change
// of each column, "-" where the cell has not the metric.
func (c CellDiff) row(cols []column) []string {
	out := c.Key.columns()
	for _, col := range cols {
		m, ok := c.metric(col)
		if !ok {
			out = append(out, "-", "-", "-")
			continue
		}
		out = append(out, col.text(m.A.Est), col.text(m.B.Est), m.delta())
	}
	return out
}

func (c CellDiff) verdict() string {
	var worse, better bool
	for _, m := range c.Metrics {
		worse = worse || m.Regression
		better = better || (m.Significant && !m.Regression)
	}
	switch {
	case worse && better:
		return "MIXED"
	case worse:
		return "REGRESSED"
	case better:
		return "improved"
	}
	return ""
}

// columns are the key's op, value, threshold and protocol columns; "-"
// where a baseline store has no threshold, or two have no protocol in
// common.
func (k Key) columns() []string {
	th, proto := units.Bytes(int64(k.Threshold)), results.ProtocolLabel(k.Store, k.Protocol)
	if k.baseline() {
		th = "-"
	}
	if proto == "" {
		proto = "-"
	}
	return []string{k.Op, units.Bytes(int64(k.ValueSize)), th, proto}
}

func (r *Result) writeTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	cols, _ := r.columns()
	fmt.Fprintln(tw, strings.Join(headers(cols), "\t")+"\t\t")
	for _, c := range r.Cells {
		fmt.Fprintln(tw, strings.Join(c.row(cols), "\t")+"\t"+c.mark()+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\n")
	for _, n := range r.notes() {
		b.WriteString(n + "\n")
	}
	writeUntrusted(&b, r.Cells)
	for _, k := range r.OnlyA {
		fmt.Fprintf(&b, "only in A: %s\n", k)
	}
	for _, k := range r.OnlyB {
		fmt.Fprintf(&b, "only in B: %s\n", k)
	}
	if err := r.writeClasses(&b); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// headers are the table's column headers: the key's, then A, B and the
// change of each metric column.
func headers(cols []column) []string {
	h := []string{"op", "value", "threshold", "protocol"}
	for _, col := range cols {
		h = append(h, col.name+" A", col.name+" B", "Δ"+col.name)
	}
	return h
}

// mark is the cell's verdict, "!" after it when it is not to be trusted.
func (c CellDiff) mark() string {
	v := c.verdict()
	if !c.Trusted() {
		v = strings.TrimSpace(v + " !")
	}
	return v
}

// notes are the lines under the table: the count of cells by verdict,
// what the marks mean, and what the comparison could not judge.
func (r *Result) notes() []string {
	var regressed, improved int
	for _, c := range r.Cells {
		switch c.verdict() {
		case "REGRESSED", "MIXED":
			regressed++
		case "improved":
			improved++
		}
	}
	out := []string{fmt.Sprintf("%d cells compared: %d regressed, %d improved, %d unchanged within noise.",
		len(r.Cells), regressed, improved, len(r.Cells)-regressed-improved)}
	if r.RunsA >= 2 && r.RunsB >= 2 {
		out = append(out, fmt.Sprintf("A and B: medians of %d and %d runs. * significant: the runs differ (Mann-Whitney U, Holm-adjusted p <= %g over the whole comparison) and |change| >= %.1f%% (see docs/COMPARE.md).",
			r.RunsA, r.RunsB, r.Alpha, 100*r.MinEffect))
	} else {
		out = append(out, fmt.Sprintf("* significant: 95%% intervals do not overlap and |change| >= %.1f%% (see docs/COMPARE.md); ? no noise estimate.",
			100*r.MinEffect))
	}
	_, figNotes := r.columns()
	out = append(out, figNotes...)
	if r.TargetNote != "" {
		out = append(out, "note: "+r.TargetNote)
	}
	if r.Note != "" {
		out = append(out, "note: "+r.Note)
	}
	return out
}

// writeUntrusted explains the "!" mark and lists, cell by cell, the failed
// checks that earned it.
func writeUntrusted(b *strings.Builder, cells []CellDiff) {
	first := true
	for _, c := range cells {
		if c.Trusted() {
			continue
		}
		if first {
			b.WriteString("! not to be trusted: a side's cell failed a check (docs/TRUST.md); --fail-on-regression ignores its regressions unless --strict.\n")
			first = false
		}
		fmt.Fprintf(b, "  %s: %s\n", c.Key, strings.Join(c.Untrusted, "; "))
	}
}
