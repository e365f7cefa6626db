package compare

import (
	"bytes"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// mixedRuns are two real runs of one mixed workload (resultstest.MixedA
// and MixedB).
func mixedRuns(t *testing.T) (a, b Run) {
	return Run{Run: resultstest.MixedA(t)}, Run{Run: resultstest.MixedB(t)}
}

// Two mixed runs compare cell by cell, the whole workload of each
// threshold among the cells, and size class by size class below them.
func TestMixedGolden(t *testing.T) {
	a, b := mixedRuns(t)
	res, err := Compare(a.Run, b.Run, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := res.Write(&buf, "table"); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, buf.String(), "compare-mixed.table.golden")
	buf.Reset()
	if err := res.Write(&buf, "json"); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, buf.String(), "compare-mixed.json.golden")
}

// The whole workload of a threshold is judged as a cell is; a size class
// is judged only with MinClassCount operations on each side, and never
// counts in the verdict.
func TestMixedClasses(t *testing.T) {
	a, b := mixedRuns(t)
	res, err := Compare(a.Run, b.Run, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	var whole int
	for _, c := range res.Cells {
		if c.Key.Op == results.Whole {
			whole++
			if len(c.Metrics) != 3 || !c.Metrics[0].Known {
				t.Errorf("%s: metrics %+v, want p50, p99 and ops/s with intervals", c.Key, c.Metrics)
			}
		}
	}
	if whole != 2 || len(res.OnlyA)+len(res.OnlyB) != 0 {
		t.Errorf("%d whole-workload cells, want 2; only A %v, only B %v", whole, res.OnlyA, res.OnlyB)
	}
	if len(res.SizeClasses) == 0 {
		t.Fatal("no size classes compared")
	}
	var few, many int
	for _, d := range res.SizeClasses {
		small := min(d.CountA, d.CountB) < MinClassCount
		for _, m := range d.Metrics {
			if m.Known == small || (small && m.Significant) {
				t.Errorf("%s class %d (%d, %d ops): %s known %v, significant %v", d.Key, d.Class, d.CountA, d.CountB, m.Name, m.Known, m.Significant)
			}
		}
		if small {
			few++
		} else {
			many++
		}
	}
	if few == 0 || many == 0 {
		t.Errorf("classes with few operations %d, with enough %d: the fixture should have both", few, many)
	}
	// Several runs a side: the classes are pooled and shown, not judged.
	many2, err := CompareRuns([]Run{a, a}, []Run{b, b}, Options{MinEffect: DefaultMinEffect}, DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range many2.SizeClasses {
		for _, m := range d.Metrics {
			if !m.Informational || m.Significant {
				t.Errorf("%s class %d over two runs a side: %+v", d.Key, d.Class, m)
			}
		}
	}
	if len(many2.SizeClasses) != len(res.SizeClasses) {
		t.Errorf("%d classes over two runs a side, %d over one", len(many2.SizeClasses), len(res.SizeClasses))
	}
}
