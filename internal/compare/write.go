package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// Formats lists the accepted --format values.
var Formats = []string{"table", "json"}

// Write renders the comparison in format.
func (r *Result) Write(w io.Writer, format string) error {
	switch format {
	case "table":
		return r.writeTable(w)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

func (m Metric) value(v float64) string {
	if m.Name == "ops/s" {
		return units.Rate(v)
	}
	return units.Duration(v)
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

// cpuNames are the CPU metrics' columns, in order.
var cpuNames = []string{"cpu_c", "cpu_s"}

// hasCPU says whether any cell has CPU metrics, which then get columns.
func (r *Result) hasCPU() bool {
	for _, c := range r.Cells {
		if len(c.CPU) > 0 {
			return true
		}
	}
	return false
}

// cpuColumns are a cell's CPU metrics, A, B and change each, "-" where
// the cell has none.
func (c CellDiff) cpuColumns() []string {
	var out []string
	for _, name := range cpuNames {
		i := slices.IndexFunc(c.CPU, func(m Metric) bool { return m.Name == name })
		if i < 0 {
			out = append(out, "-", "-", "-")
			continue
		}
		m := c.CPU[i]
		out = append(out, m.value(m.A.Est), m.value(m.B.Est), m.delta())
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
	head := "op\tvalue\tthreshold\tprotocol\tp50 A\tp50 B\tΔp50\tp99 A\tp99 B\tΔp99\tops/s A\tops/s B\tΔops/s\t"
	cpu := r.hasCPU()
	if cpu {
		head += "cpu_c A\tcpu_c B\tΔcpu_c\tcpu_s A\tcpu_s B\tΔcpu_s\t"
	}
	fmt.Fprintln(tw, head+"\t")
	var regressed, improved int
	for _, c := range r.Cells {
		row := c.Key.columns()
		for _, m := range c.Metrics {
			row = append(row, m.value(m.A.Est), m.value(m.B.Est), m.delta())
		}
		if cpu {
			row = append(row, c.cpuColumns()...)
		}
		v := c.verdict()
		switch v {
		case "REGRESSED", "MIXED":
			regressed++
		case "improved":
			improved++
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t"+v+"\t")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%d cells compared: %d regressed, %d improved, %d unchanged within noise.\n",
		len(r.Cells), regressed, improved, len(r.Cells)-regressed-improved)
	if r.RunsA >= 2 && r.RunsB >= 2 {
		fmt.Fprintf(&b, "A and B: medians of %d and %d runs. * significant: the runs differ (Mann-Whitney U, Holm-adjusted p <= %g over the whole comparison) and |change| >= %.1f%% (see docs/COMPARE.md).\n",
			r.RunsA, r.RunsB, r.Alpha, 100*r.MinEffect)
	} else {
		fmt.Fprintf(&b, "* significant: 95%% intervals do not overlap and |change| >= %.1f%% (see docs/COMPARE.md); ? no noise estimate.\n",
			100*r.MinEffect)
	}
	if cpu {
		b.WriteString("cpu_c, cpu_s: CPU time per operation of the measure phase, the client's and the server's (cpu_c is the whole process's where the server ran inside kvbench; - where the runs did not measure it alike); shown, never judged.\n")
	}
	if r.TargetNote != "" {
		fmt.Fprintf(&b, "note: %s\n", r.TargetNote)
	}
	if r.Note != "" {
		fmt.Fprintf(&b, "note: %s\n", r.Note)
	}
	for _, k := range r.OnlyA {
		fmt.Fprintf(&b, "only in A: %s\n", k)
	}
	for _, k := range r.OnlyB {
		fmt.Fprintf(&b, "only in B: %s\n", k)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
