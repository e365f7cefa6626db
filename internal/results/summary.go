package results

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
)

// WriteSummary prints the perftest-style table of a run: one row per cell,
// latencies in microseconds. "misses" counts not_found answers, "errors"
// every other failure kind.
func WriteSummary(w io.Writer, r *Run) error {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.AlignRight) // one space: the table fits 120 columns
	fmt.Fprintln(tw, "threshold\tbytes\tprotocol\top\tops\tmisses\terrors\tt_min[us]\tp50[us]\tmean[us]\tp99[us]\tp99.9[us]\tmax[us]\tops/s\tMiB/s\t")
	for _, c := range r.Cells {
		var errs int64
		for k, n := range c.Errors {
			if k != "not_found" {
				errs += n
			}
		}
		l := c.Latency
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%.2f\t\n",
			c.Threshold, c.ValueSize, c.Protocol, c.Op, c.Count, c.Errors["not_found"], errs,
			us(float64(l.Min)), us(float64(l.P50)), us(l.Mean), us(float64(l.P99)), us(float64(l.P999)), us(float64(l.Max)),
			c.ThroughputOps, c.ThroughputBytes/(1<<20))
	}
	if err := tw.Flush(); err != nil {
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

func us(ns float64) string { return fmt.Sprintf("%.2f", ns/1e3) }

// SaveSummary writes summary.txt atomically into dir.
func SaveSummary(dir string, r *Run) error {
	var buf bytes.Buffer
	if err := WriteSummary(&buf, r); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, SummaryFile), buf.Bytes())
}
