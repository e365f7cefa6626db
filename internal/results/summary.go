package results

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteSummary prints the perftest-style table of a run: one row per cell,
// latencies in microseconds. "misses" counts not_found answers, "errors"
// every other failure kind. When any cell has CPU figures, cpu_c and
// cpu_s are the client's and the server's CPU time per operation of the
// cell's measure phase ("-": not measured; "proc": the server ran inside
// kvbench, whose CPU in cpu_c is both sides', as a note under the table
// says). When a cell has warnings, a "!" column marks it and the warnings
// follow the table.
func WriteSummary(w io.Writer, r *Run) error {
	warned := slices.ContainsFunc(r.Cells, func(c Cell) bool { return len(c.Warnings) > 0 })
	cpu, proc := cpuScopes(r)
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 1, ' ', tabwriter.AlignRight) // one space: the table fits 120 columns, 145 with cpu
	head := "threshold\tbytes\tprotocol\top\tops\tmisses\terrors\tt_min[us]\tp50[us]\tmean[us]\tp99[us]\tp99.9[us]\tmax[us]\tops/s\tMiB/s\t"
	if cpu {
		head += "cpu_c[us/op]\tcpu_s[us/op]\t"
	}
	if warned {
		head += "!\t"
	}
	fmt.Fprintln(tw, head)
	for _, c := range r.Cells {
		var errs int64
		for k, n := range c.Errors {
			if k != "not_found" {
				errs += n
			}
		}
		l := c.Latency
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%.2f\t",
			c.Threshold, c.ValueSize, c.Protocol, c.Op, c.Count, c.Errors["not_found"], errs,
			us(float64(l.Min)), us(float64(l.P50)), us(l.Mean), us(float64(l.P99)), us(float64(l.P999)), us(float64(l.Max)),
			c.ThroughputOps, c.ThroughputBytes/(1<<20))
		if cpu {
			client, server := cpuColumns(c.CPU)
			fmt.Fprintf(tw, "%s\t%s\t", client, server)
		}
		if warned {
			fmt.Fprint(tw, mark(c), "\t")
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// An unmarked row's empty "!" cell would end its line in spaces.
	for line := range strings.Lines(table.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	if proc {
		fmt.Fprintln(w, "cpu: proc marks cells whose server ran inside kvbench: cpu_c is the process's CPU, client and server together")
	}
	if err := WriteWarnings(w, r.Cells); err != nil {
		return err
	}
	v := r.Verify
	if v.Checked > 0 || v.Mismatches+v.Missing+v.Torn > 0 {
		_, err := fmt.Fprintf(w, "verify: %d checked, %d mismatches, %d missing, %d torn\n", v.Checked, v.Mismatches, v.Missing, v.Torn)
		if err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "end: %s\n", r.EndReason)
	return err
}

// cpuScopes says whether any cell has CPU figures, and whether any has
// them in process scope.
func cpuScopes(r *Run) (cpu, proc bool) {
	for _, c := range r.Cells {
		if c.CPU != nil {
			cpu = true
			proc = proc || c.CPU.Scope == CPUScopeProcess
		}
	}
	return cpu, proc
}

// cpuColumns are a cell's cpu_c and cpu_s in microseconds per operation.
func cpuColumns(c *CellCPU) (client, server string) {
	switch {
	case c == nil:
		return "-", "-"
	case c.Scope == CPUScopeProcess:
		return us(c.Client.NsPerOp), "proc"
	case c.Server == nil:
		return us(c.Client.NsPerOp), "-"
	}
	return us(c.Client.NsPerOp), us(c.Server.NsPerOp)
}

func mark(c Cell) string {
	if len(c.Warnings) > 0 {
		return "!"
	}
	return ""
}

// WriteWarnings lists every cell's warnings, one a line after the cell's
// name, under a heading; nothing when no cell has any.
func WriteWarnings(w io.Writer, cells []Cell) error {
	var b bytes.Buffer
	for _, c := range cells {
		for _, warn := range c.Warnings {
			fmt.Fprintf(&b, "  %s: %s\n", c.Name(), warn.Message)
		}
	}
	if b.Len() == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w, "warnings (cells marked !; docs/USAGE.md says what each means):"); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func us(ns float64) string { return fmt.Sprintf("%.2f", ns/1e3) }

// SaveSummary writes summary.txt atomically into dir.
func SaveSummary(dir string, r *Run) error {
	var buf bytes.Buffer
	if err := WriteSummary(&buf, r); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, SummaryFile), buf.Bytes())
}
