package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"gotest.tools/v3/golden"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

func spec(seed uint64, scale map[string]float64) resultstest.Spec {
	return resultstest.Spec{Ops: []string{"get", "set"}, Sizes: []int{64, 4096, 65536}, Thresholds: []int{4096},
		Samples: 5000, Intervals: 5, Seed: seed, Model: resultstest.Default, Scale: scale}
}

func build(t *testing.T, dir string, s resultstest.Spec) *results.Run {
	t.Helper()
	run, err := resultstest.Build(dir, s)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestTwentyPercentRegressionFlagged(t *testing.T) {
	da, db := t.TempDir(), t.TempDir()
	a := build(t, da, spec(1, nil))
	b := build(t, db, spec(2, map[string]float64{"get": 1.2}))
	res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect, DirA: da, DirB: db})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 6 {
		t.Fatalf("%d cells matched", len(res.Cells))
	}
	for _, c := range res.Cells {
		for _, m := range c.Metrics {
			if c.Key.Op == "get" {
				if !m.Regression {
					t.Errorf("%s %s: change %+.1f%% not flagged (%+v)", c.Key, m.Name, 100*m.Change, m)
				}
				if m.Name != "ops/s" && (m.Change < 0.15 || m.Change > 0.25) {
					t.Errorf("%s %s: change %+.1f%%, want about +20%%", c.Key, m.Name, 100*m.Change)
				}
			} else if m.Significant {
				t.Errorf("%s %s: unchanged cell flagged %+.1f%%", c.Key, m.Name, 100*m.Change)
			}
		}
	}
	if got := res.Regressions(10, false); len(got) != 9 {
		t.Errorf("regressions over 10%%: %v", got)
	}
	if got := res.Regressions(30, false); len(got) != 0 {
		t.Errorf("regressions over 30%%: %v", got)
	}
	if err := res.Check(10, false); err == nil || !strings.Contains(err.Error(), "get/64B/t=4KiB/eager p50") {
		t.Errorf("Check(10) = %v", err)
	}
	if err := res.Check(30, false); err != nil {
		t.Errorf("Check(30) = %v", err)
	}
}

func TestOnePercentWiggleNotFlagged(t *testing.T) {
	a := build(t, "", spec(1, nil))
	b := build(t, "", spec(3, map[string]float64{"get": 1.01, "set": 0.99}))
	res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		for _, m := range c.Metrics {
			if m.Significant || !m.Known {
				t.Errorf("%s %s: change %+.2f%% significant=%v known=%v", c.Key, m.Name, 100*m.Change, m.Significant, m.Known)
			}
		}
	}
	if err := res.Check(0, false); err != nil {
		t.Errorf("Check(0) = %v", err)
	}
}

func TestUnmatchedAndGolden(t *testing.T) {
	a := build(t, "", spec(1, nil))
	sb := spec(5, map[string]float64{"set": 1.3})
	sb.Sizes = []int{64, 4096, 1 << 20}
	b := build(t, "", sb)
	res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.OnlyA) != 2 || len(res.OnlyB) != 2 || res.OnlyA[0].ValueSize != 65536 || res.OnlyB[0].ValueSize != 1<<20 {
		t.Errorf("only A %v, only B %v", res.OnlyA, res.OnlyB)
	}
	var buf bytes.Buffer
	if err := res.Write(&buf, "table"); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, buf.String(), "compare.table.golden")
	buf.Reset()
	if err := res.Write(&buf, "json"); err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back.Cells) != len(res.Cells) {
		t.Errorf("json: %v", err)
	}
	if err := res.Write(&buf, "yaml"); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestNoHistogramMeansUnknown(t *testing.T) {
	a := build(t, "", spec(1, nil))
	b := build(t, "", spec(2, map[string]float64{"get": 1.5}))
	for i := range b.Cells {
		b.Cells[i].Histogram = ""
	}
	res, err := Compare(a, b, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		for _, m := range c.Metrics {
			if m.Known || m.Significant {
				t.Errorf("%s %s: known=%v significant=%v without a histogram", c.Key, m.Name, m.Known, m.Significant)
			}
		}
	}
	if _, err := Compare(a, b, Options{MinEffect: -1}); err == nil {
		t.Error("negative min effect accepted")
	}
}

func BenchmarkCompare(b *testing.B) {
	a, _ := resultstest.Build("", spec(1, nil))
	c, _ := resultstest.Build("", spec(2, map[string]float64{"get": 1.2}))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compare(a, c, Options{MinEffect: DefaultMinEffect}); err != nil {
			b.Fatal(err)
		}
	}
}
