package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// A report does not depend on the order results.json lists the cells in,
// which is the order they ran in: the same run with its cells reversed
// reports the same, in every format and every view but the summary, which
// is run's own table of the cells as they ran (TestSummaryKeepsRunOrder).
func TestReportIgnoresCellOrder(t *testing.T) {
	views := map[string]func(io.Writer, *results.Run, string) error{
		"cells": Write, "phases": WritePhases, "spread": WriteSpread,
	}
	// A sweep's cells at three thresholds, for the spread across them.
	sweep, err := resultstest.Build("", resultstest.Spec{Ops: []string{"get", "set"}, Sizes: []int{64, 4096},
		Thresholds: []int{8192, 65536, 1 << 20}, Samples: 400, Seed: 1, Model: resultstest.Default})
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]bool{}
	for _, dir := range []string{"testdata", "testdata/phases", "testdata/cpu", "sweep"} {
		run := sweep
		if dir != "sweep" {
			if run, _, err = results.Open(dir); err != nil {
				t.Fatal(err)
			}
		}
		reversed := *run
		reversed.Cells = slices.Clone(run.Cells)
		slices.Reverse(reversed.Cells)
		for name, write := range views {
			for _, format := range Formats {
				if name == "cells" && format == "summary" {
					continue
				}
				var a, b bytes.Buffer
				errA, errB := write(&a, run, format), write(&b, &reversed, format)
				if fmt.Sprint(errA) != fmt.Sprint(errB) || a.String() != b.String() {
					t.Errorf("%s %s %s: reversed cells report differently (%v, %v):\n%s\nreversed:\n%s", dir, name, format, errA, errB, &a, &b)
				}
				shown[name] = shown[name] || (errA == nil && bytes.Contains(a.Bytes(), []byte("get")))
			}
		}
	}
	for name := range views {
		if !shown[name] {
			t.Errorf("no run of testdata has a %s report to compare", name)
		}
	}
}
