// Package report renders a run's results.json as a table, markdown, CSV or
// JSON, one row per cell, as the summary table kvbench run prints, or as
// one self-contained HTML page (RunPage).
package report

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// Formats lists the accepted --format values: the views' (viewFormats),
// then the summary, which only the cells have.
var Formats = append(slices.Clip(viewFormats), "summary")

// viewFormats are the formats of every view: the cells, their phases and
// their spread across thresholds.
var viewFormats = []string{"table", "markdown", "csv", "json", "html"}

// Row is one cell flattened for output. Latencies are nanoseconds and rates
// per second so CSV and JSON keep full precision.
type Row struct {
	Op        string `json:"op"`
	ValueSize int    `json:"value_size"`
	Threshold int    `json:"threshold"`
	Policy    string `json:"policy,omitempty"` // results.Cell.Policy
	Protocol  string `json:"protocol"`
	Store     string `json:"store"` // the kind of store the cell measured (results.Cell.Store)
	// Distribution is the law the cell's values' sizes were drawn from
	// (results.Cell.Distribution), ValueSize then its mean.
	Distribution string  `json:"distribution,omitempty"`
	Count        int64   `json:"count"`
	Errors       int64   `json:"errors"` // results.Cell.Failures: misses are not errors
	OpsPerSec    float64 `json:"throughput_ops"`
	BytesPerSec  float64 `json:"throughput_bytes"`
	P50          int64   `json:"p50_ns"`
	P90          int64   `json:"p90_ns"`
	P99          int64   `json:"p99_ns"`
	P999         int64   `json:"p999_ns"`
	Max          int64   `json:"max_ns"`
	// Warnings say why the cell may not be trusted (results.Cell.Warnings).
	Warnings []results.Warning `json:"warnings,omitempty"`
	// Checks are the tests of whether the cell can be trusted
	// (results.Cell.Checks).
	Checks []results.Check `json:"checks,omitempty"`
	// cell is the cell the row is of: its figures (figure.All) print in
	// their columns and, in JSON, after Max (MarshalJSON).
	cell results.Cell
}

// Rows flattens the cells, ordered as sorted orders them.
func Rows(run *results.Run) []Row { return rowsOf(sorted(run)) }

// rowsOf flattens cells in their order.
func rowsOf(cells []results.Cell) []Row {
	rows := make([]Row, 0, len(cells))
	for _, c := range cells {
		rows = append(rows, Row{
			Op: c.Op, ValueSize: c.ValueSize, Threshold: c.Threshold, Policy: c.Policy, Protocol: c.Protocol, Store: c.Store, Distribution: c.Distribution,
			Count: c.Count, Errors: c.Failures(),
			OpsPerSec: c.ThroughputOps, BytesPerSec: c.ThroughputBytes,
			P50: c.Latency.P50, P90: c.Latency.P90, P99: c.Latency.P99, P999: c.Latency.P999, Max: c.Latency.Max,
			Warnings: c.Warnings, Checks: c.Checks,
			cell: c,
		})
	}
	return rows
}

// sorted orders run's cells by op, value size, threshold, then protocol,
// so eager and rendezvous at one size sit next to each other.
func sorted(run *results.Run) []results.Cell {
	cells := slices.Clone(run.Cells)
	slices.SortStableFunc(cells, func(a, b results.Cell) int {
		return cmp.Or(cmp.Compare(a.Op, b.Op), cmp.Compare(a.ValueSize, b.ValueSize),
			cmp.Compare(a.Threshold, b.Threshold), cmp.Compare(a.Protocol, b.Protocol))
	})
	return cells
}

// Write renders run in format (one of Formats); html takes the current
// directory for the run's and the page's (WritePage says where).
func Write(w io.Writer, run *results.Run, format string) error {
	switch format {
	case "table":
		return writeTable(w, run)
	case "markdown":
		return writeMarkdown(w, run)
	case "csv":
		return writeCSV(w, run)
	case "json":
		return writeJSON(w, run)
	case "summary":
		return WriteSummary(w, run)
	case "html":
		return WritePage(w, run, Site{})
	}
	return unknownFormat(format, Formats)
}

func unknownFormat(format string, known []string) error {
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(known, ", "))
}

// WorkloadName digs the name out of the generic workload document.
func WorkloadName(run *results.Run) string {
	if m, ok := run.Workload.(map[string]any); ok {
		if s, ok := m["name"].(string); ok {
			return s
		}
	}
	return ""
}

// harnessKey heads the line that gives the harness's own cost
// (results.HarnessCost), which the cells' p50s are judged against.
const harnessKey = "harness cost"

// header is the run description shared by table and markdown.
func header(run *results.Run) [][2]string {
	tr := run.Transport.Name
	if run.Transport.Device != "" {
		tr += " (" + run.Transport.Device + ")"
	}
	if p := run.Transport.ClientPoll; p != "" {
		tr += ", client polls " + p
	}
	server := run.Transport.Server
	if run.Transport.Embedded {
		server += " (embedded)"
	}
	if p := run.Transport.ServerPoll; p != "" {
		server += ", polls " + p
	}
	h := [][2]string{
		{"workload", WorkloadName(run)},
		{"target", storeLine(run)},
		{"transport", tr},
		{"server", server},
		{"host", fmt.Sprintf("%s, %d cores, %s", run.Host.Hostname, run.Host.Cores, run.Host.CPUModel)},
		{"start", run.Start.UTC().Format(time.RFC3339)},
		{"duration", run.End.Sub(run.Start).Round(time.Millisecond).String()},
		{"end", run.EndReason},
		{"version", strings.TrimSpace(run.Version + " " + run.Revision)},
		{"seed", strconv.FormatUint(run.Seed, 10)},
	}
	if c := run.Harness; c != nil {
		h = append(h, [2]string{harnessKey, c.String()})
	}
	if n := distributionNote(run.Cells); n != "" {
		h = append(h, [2]string{"values", n}, [2]string{results.Whole, wholeNote})
	}
	if run.Target != nil && run.Target.Profile != "" {
		h = append(h, [2]string{results.PolicyProfile, run.Target.Profile + "; the cells' threshold is the larger, which the clients asked the server for"})
	}
	return append(h, figureNotes(run.Cells, headerNote)...)
}

// distributionNote says, for a run whose values' sizes were drawn from a
// distribution, which one, and that the cells' value sizes are its mean,
// or for a replay, which trace; "" for fixed sizes.
func distributionNote(cells []results.Cell) string {
	for _, c := range cells {
		if c.Trace != nil {
			return fmt.Sprintf("%s, each value of its recorded size (the value size of its cells, %s, is the mean of their sets; each operation's protocol is its value's); the trace recorded %d of each threshold's gets as misses, beside the store's not_found answers",
				c.Distribution, units.Bytes(int64(c.ValueSize)), recordedMisses(cells, c.Threshold))
		}
		if c.Distribution != "" {
			return fmt.Sprintf("%s, drawn for each value (the value size of its cells, %s, is its mean; each operation's protocol is its value's)",
				c.Distribution, units.Bytes(int64(c.ValueSize)))
		}
	}
	return ""
}

// recordedMisses are the gets of the cells at threshold th that the
// trace they replayed recorded as misses: every threshold's cells
// replay the same window.
func recordedMisses(cells []results.Cell, th int) (n int64) {
	for _, c := range cells {
		if c.Trace != nil && c.Threshold == th {
			n += c.Trace.RecordedMisses
		}
	}
	return n
}

var tableColumns = []string{"op", "value", "threshold", "protocol", "count", "errors",
	"ops/s", "MiB/s", "p50", "p90", "p99", "p99.9", "max"}

// columns are the table's columns for run: tableColumns, then those of
// the figures some cell has (figs).
func columns(figs []figure.Figure) []string {
	return append(slices.Clip(tableColumns), figureHeads(figs, func(c figure.Column) string { return c.Head })...)
}

func humanRow(r Row, figs []figure.Figure) []string {
	out := []string{r.Op, units.Bytes(int64(r.ValueSize)), thresholdText(r.Threshold, r.Store, r.Policy), results.ProtocolLabel(r.Store, r.Protocol),
		strconv.FormatInt(r.Count, 10), strconv.FormatInt(r.Errors, 10),
		units.Rate(r.OpsPerSec), units.MiB(r.BytesPerSec),
		units.Duration(float64(r.P50)), units.Duration(float64(r.P90)), units.Duration(float64(r.P99)),
		units.Duration(float64(r.P999)), units.Duration(float64(r.Max))}
	return append(out, figureCells(r.cell, figs, humanNum)...)
}

func writeTable(w io.Writer, run *results.Run) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, kv := range header(run) {
		fmt.Fprintf(tw, "%s:\t%s\n", kv[0], kv[1])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	rows, err := rowsWithWhole(run)
	if err != nil {
		return err
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	figs := shown(run.Cells)
	fmt.Fprintln(tw, strings.Join(columns(figs), "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(humanRow(r, figs), "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if lines := warningLines(sorted(run)); len(lines) > 0 {
		if _, err := fmt.Fprintf(w, "\nwarnings (docs/USAGE.md says what each means):\n  %s\n", strings.Join(lines, "\n  ")); err != nil {
			return err
		}
	}
	if lines := checkLines(sorted(run)); len(lines) > 0 {
		_, err := fmt.Fprintf(w, "\nchecks (docs/TRUST.md says what each means):\n  %s\n", strings.Join(lines, "\n  "))
		return err
	}
	return nil
}

// warningLines is every cell's warnings, each after the cell's name.
func warningLines(cells []results.Cell) []string {
	var out []string
	for _, c := range cells {
		for _, w := range c.Warnings {
			out = append(out, c.Name()+": "+w.Message)
		}
	}
	return out
}

func writeMarkdown(w io.Writer, run *results.Run) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## kvbench run %s\n\n", WorkloadName(run))
	for _, kv := range header(run) {
		fmt.Fprintf(&b, "- **%s**: %s\n", kv[0], mdEscape(kv[1]))
	}
	b.WriteString("\n")
	rows, err := rowsWithWhole(run)
	if err != nil {
		return err
	}
	var cells [][]string
	figs := shown(run.Cells)
	for _, r := range rows {
		cells = append(cells, humanRow(r, figs))
	}
	mdTable(&b, columns(figs), cells)
	if lines := warningLines(sorted(run)); len(lines) > 0 {
		b.WriteString("\n**Warnings** (docs/USAGE.md says what each means):\n\n")
		for _, l := range lines {
			b.WriteString("- " + mdEscape(l) + "\n")
		}
	}
	if lines := checkLines(sorted(run)); len(lines) > 0 {
		b.WriteString("\n**Checks** (docs/TRUST.md says what each means):\n\n")
		for _, l := range lines {
			b.WriteString("- " + mdEscape(l) + "\n")
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// mdTable writes a markdown table: the first four columns (op, value,
// threshold, protocol) left-aligned, the figures right-aligned.
func mdTable(b *strings.Builder, cols []string, rows [][]string) {
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n|")
	for i := range cols {
		if i < 4 {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |")
		}
	}
	b.WriteString("\n")
	for _, cells := range rows {
		for i := range cells {
			cells[i] = mdEscape(cells[i])
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
}

func writeCSV(w io.Writer, run *results.Run) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(append(append([]string{"op", "value_size", "threshold", "protocol", "count", "errors",
		"throughput_ops", "throughput_bytes", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns"}, csvFigureHeads()...), "warning_kinds", "warnings", "checks_passed", "checks_failed", "policy", "store"))
	rows, err := rowsWithWhole(run)
	if err != nil {
		return err
	}
	for _, r := range rows {
		kinds, msgs := csvWarnings(r.Warnings)
		tally, failed := csvChecks(r.Checks)
		_ = cw.Write(append(append([]string{r.Op, strconv.Itoa(r.ValueSize), thresholdField(r.Threshold, r.Store), r.Protocol,
			strconv.FormatInt(r.Count, 10), strconv.FormatInt(r.Errors, 10),
			strconv.FormatFloat(r.OpsPerSec, 'f', -1, 64), strconv.FormatFloat(r.BytesPerSec, 'f', -1, 64),
			strconv.FormatInt(r.P50, 10), strconv.FormatInt(r.P90, 10), strconv.FormatInt(r.P99, 10),
			strconv.FormatInt(r.P999, 10), strconv.FormatInt(r.Max, 10)}, csvFigures(r.cell)...), kinds, msgs, tally, failed, r.Policy, r.Store))
	}
	cw.Flush()
	return cw.Error()
}

// csvWarnings puts a cell's warnings in two fields: the kinds, joined by
// spaces, to filter on, and the messages, joined by "; ".
func csvWarnings(ws []results.Warning) (kinds, msgs string) {
	k, m := make([]string, len(ws)), make([]string, len(ws))
	for i, w := range ws {
		k[i], m[i] = w.Kind, w.Message
	}
	return strings.Join(k, " "), strings.Join(m, "; ")
}

// jsonReport is the json format: the run description and the rows.
type jsonReport struct {
	Workload  string            `json:"workload"`
	Target    results.Target    `json:"target"`
	Transport results.Transport `json:"transport"`
	Start     time.Time         `json:"start"`
	End       time.Time         `json:"end"`
	EndReason string            `json:"end_reason"`
	Seed      uint64            `json:"seed"`
	Rows      []Row             `json:"cells"`
	// Whole are the whole workload of each threshold of a mixed run
	// (results.WholeCells), op and protocol "all".
	Whole []Row `json:"whole,omitempty"`
}

// indentJSON writes v as JSON indented by two spaces, as every json
// format of report does.
func indentJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func writeJSON(w io.Writer, run *results.Run) error {
	whole, err := results.WholeCells(run.Cells)
	if err != nil {
		return err
	}
	return indentJSON(w, jsonReport{
		Workload: WorkloadName(run), Target: storeOf(run), Transport: run.Transport, Start: run.Start, End: run.End,
		EndReason: run.EndReason, Seed: run.Seed, Rows: Rows(run), Whole: rowsOf(whole),
	})
}
