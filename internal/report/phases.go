package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// ErrNoPhases is WritePhases' error for a run recorded without phases.
var ErrNoPhases = errors.New("no cell has phases: record them with op_phases: true in the workload or --phases")

// PhaseRow is one cell's phases for output; PhaseNames orders Phases.
type PhaseRow struct {
	Row
	Phases map[string]results.OpPhase `json:"phases"`
}

// PhaseRows are the cells that have phases, in Rows' order, and the
// names of the phases any of them has, in the order an operation passes
// them.
func PhaseRows(run *results.Run) ([]PhaseRow, []string) {
	byKey := map[string]map[string]results.OpPhase{}
	have := map[string]bool{}
	for _, c := range run.Cells {
		if len(c.Phases) > 0 {
			byKey[c.Name()] = c.Phases
			for name := range c.Phases {
				have[name] = true
			}
		}
	}
	var rows []PhaseRow
	for _, r := range Rows(run) {
		if ph, ok := byKey[results.CellName(r.Store, r.Op, r.ValueSize, r.Threshold, r.Protocol)]; ok {
			rows = append(rows, PhaseRow{Row: r, Phases: ph})
		}
	}
	var names []string
	for _, n := range results.PhaseNames {
		if have[n] {
			names = append(names, n)
		}
	}
	return rows, names
}

// WritePhases renders each cell's phases in format: table and markdown
// show every phase's p50 beside the cell's (the phases of an operation
// add up to its latency, so in a steady run their p50s add up to about
// the cell's); csv has one line per cell and phase with count, p50, p90,
// p99 and max; json has the cells with their phases.
func WritePhases(w io.Writer, run *results.Run, format string) error {
	rows, names := PhaseRows(run)
	if len(rows) == 0 {
		return ErrNoPhases
	}
	switch format {
	case "table", "markdown":
		return writePhaseTable(w, run, rows, names, format == "markdown")
	case "csv":
		return writePhaseCSV(w, rows, names)
	case "html":
		return writeHTMLView(w, "kvbench run "+WorkloadName(run)+": p50 of each phase", phasesHTML(rows, names))
	case "json":
		return indentJSON(w, struct {
			Workload string     `json:"workload"`
			Phases   []string   `json:"phase_order"`
			Cells    []PhaseRow `json:"cells"`
		}{WorkloadName(run), names, rows})
	}
	return unknownFormat(format, viewFormats)
}

func phaseTableRow(r PhaseRow, names []string) []string {
	out := []string{r.Op, units.Bytes(int64(r.ValueSize)), thresholdText(r.Threshold, r.Store, r.Policy), results.ProtocolLabel(r.Store, r.Protocol),
		strconv.FormatInt(r.Count, 10), units.Duration(float64(r.P50))}
	var sum int64
	for _, n := range names {
		p, ok := r.Phases[n]
		if !ok {
			out = append(out, "-")
			continue
		}
		sum += p.P50
		out = append(out, units.Duration(float64(p.P50)))
	}
	return append(out, units.Duration(float64(sum)))
}

// phaseColumns are the phase table's columns: the cell, its p50, each
// phase's p50 and their sum.
func phaseColumns(names []string) []string {
	return append(append([]string{"op", "value", "threshold", "protocol", "count", "p50"}, names...), "sum")
}

// phasesHTML is the phase table in HTML, untrusted cells marked.
func phasesHTML(rows []PhaseRow, names []string) template.HTML {
	return htmlTable(phaseColumns(names), rows, func(r PhaseRow) []string { return phaseTableRow(r, names) },
		func(r PhaseRow) (results.Cell, bool) { return r.cell, true })
}

func writePhaseTable(w io.Writer, run *results.Run, rows []PhaseRow, names []string, md bool) error {
	cols := phaseColumns(names)
	var b strings.Builder
	if md {
		fmt.Fprintf(&b, "## kvbench run %s: p50 of each phase\n\n", WorkloadName(run))
		var cells [][]string
		for _, r := range rows {
			cells = append(cells, phaseTableRow(r, names))
		}
		mdTable(&b, cols, cells)
		_, err := io.WriteString(w, b.String())
		return err
	}
	fmt.Fprintf(w, "workload %s: p50 of each phase (sum: of the phase p50s)\n\n", WorkloadName(run))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(cols, "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(phaseTableRow(r, names), "\t")+"\t")
	}
	return tw.Flush()
}

func writePhaseCSV(w io.Writer, rows []PhaseRow, names []string) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"op", "value_size", "threshold", "protocol", "phase", "count", "p50_ns", "p90_ns", "p99_ns", "max_ns"})
	for _, r := range rows {
		for _, n := range names {
			p, ok := r.Phases[n]
			if !ok {
				continue
			}
			_ = cw.Write([]string{r.Op, strconv.Itoa(r.ValueSize), thresholdField(r.Threshold, r.Store), r.Protocol, n,
				strconv.FormatInt(p.Count, 10), strconv.FormatInt(p.P50, 10), strconv.FormatInt(p.P90, 10),
				strconv.FormatInt(p.P99, 10), strconv.FormatInt(p.Max, 10)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// MarshalJSON writes the row's fields (Row.MarshalJSON), then its phases.
func (r PhaseRow) MarshalJSON() ([]byte, error) {
	b, err := r.Row.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if b, err = appendField(b[:len(b)-1], "phases", r.Phases); err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}
