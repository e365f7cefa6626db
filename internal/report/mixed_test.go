package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// Every format of a mixed run: the cells, then the whole workload of
// each threshold (op and protocol "all"; json under "whole"), with the
// receive memory each cell recorded.
func TestMixedGolden(t *testing.T) {
	run := resultstest.MixedA(t)
	assertGoldens(t, run, textOf(Formats), Write, "report-mixed")
}

// The whole-workload rows add up the threshold's cells: their counts
// sum, and their rates are the sum over the shared phase.
func TestMixedWholeRows(t *testing.T) {
	run := resultstest.MixedA(t)
	var buf bytes.Buffer
	if err := Write(&buf, run, "json"); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cells, Whole []struct {
			Op        string                 `json:"op"`
			Threshold int                    `json:"threshold"`
			Count     int64                  `json:"count"`
			Ops       float64                `json:"throughput_ops"`
			Memory    *results.ReceiveMemory `json:"receive_memory"`
		}
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Whole) != 2 {
		t.Fatalf("%d whole rows, want one per threshold (2)", len(doc.Whole))
	}
	for _, w := range doc.Whole {
		var n int64
		var ops float64
		for _, c := range doc.Cells {
			if c.Threshold == w.Threshold {
				n, ops = n+c.Count, ops+c.Ops
			}
		}
		if w.Op != results.Whole || w.Count != n || w.Ops < 0.99*ops || w.Ops > 1.01*ops {
			t.Errorf("threshold %d: whole %s of %d at %.0f ops/s, want all of %d at %.0f", w.Threshold, w.Op, w.Count, w.Ops, n, ops)
		}
		if w.Memory == nil || w.Memory.Server <= 0 || w.Memory.Client <= 0 {
			t.Errorf("threshold %d: receive memory %+v", w.Threshold, w.Memory)
		}
	}
	if doc.Whole[1].Memory.Server <= doc.Whole[0].Memory.Server {
		t.Errorf("the server's receive memory does not grow with the threshold: %+v", doc.Whole)
	}
	buf.Reset()
	if err := Write(&buf, run, "csv"); err != nil || strings.Count(buf.String(), "\nall,") != len(doc.Whole) {
		t.Errorf("csv: %v, want a whole row per threshold:\n%s", err, buf.String())
	}
}

// report --by-size of the real run in every format.
func TestMixedBySizeGolden(t *testing.T) {
	run := resultstest.MixedA(t)
	assertGoldens(t, run, textOf(viewFormats), WriteBySize, "report-mixed-bysize")
}
