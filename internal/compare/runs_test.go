package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// side builds n synthetic runs under one directory, each run's latencies
// scaled by scale(i) (run-to-run drift) and its own noise seed.
func side(t *testing.T, n int, seed0 uint64, scale func(i int) float64) string {
	t.Helper()
	root := t.TempDir()
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("run-%d", i))
		s := resultstest.Spec{Ops: []string{"get"}, Sizes: []int{64, 65536}, Thresholds: []int{4096}, Samples: 4000,
			Intervals: 3, Seed: seed0 + uint64(i), Model: resultstest.Default, Scale: map[string]float64{"get": scale(i)}}
		if _, err := resultstest.Build(dir, s); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "run-0"), filepath.Join(root, results.LatestLink)); err != nil {
		t.Fatal(err)
	}
	return root
}

func compareSides(t *testing.T, a, b string) *Result {
	t.Helper()
	as, err := LoadSide(a)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := LoadSide(b)
	if err != nil {
		t.Fatal(err)
	}
	res, err := CompareRuns(as, bs, Options{MinEffect: DefaultMinEffect}, DefaultAlpha)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Runs that drift by up to ±6% from one to the next, as A/A runs on a
// shared machine do, are not a change, though every single pair of runs
// differs far beyond its within-run intervals; a 15% slowdown of every
// run is.
func TestCompareRunsDriftIsNotAChange(t *testing.T) {
	drift := func(i int) float64 { return 1 + 0.06*float64((i*7)%5-2)/2 }
	a := side(t, 5, 1, drift)
	b := side(t, 5, 11, func(i int) float64 { return drift(i + 2) })
	res := compareSides(t, a, b)
	if res.RunsA != 5 || res.RunsB != 5 || len(res.Cells) != 2 {
		t.Fatalf("%d and %d runs (the latest link skipped), %d cells", res.RunsA, res.RunsB, len(res.Cells))
	}
	for _, c := range res.Cells {
		for _, m := range c.Metrics {
			if m.Significant {
				t.Errorf("drift: %s %s %+.1f%% p=%.3g marked significant", c.Key, m.Name, 100*m.Change, m.P)
			}
		}
	}
	ra, _ := results.Load(filepath.Join(a, "run-0"))
	rb, _ := results.Load(filepath.Join(b, "run-0"))
	within, err := Compare(ra, rb, Options{MinEffect: DefaultMinEffect})
	if err != nil {
		t.Fatal(err)
	}
	flagged := 0
	for _, c := range within.Cells {
		for _, m := range c.Metrics {
			if m.Significant {
				flagged++
			}
		}
	}
	if flagged == 0 {
		t.Error("the drift is within one run's intervals: this test shows nothing")
	}

	slow := side(t, 5, 21, func(i int) float64 { return 1.15 * drift(i) })
	res = compareSides(t, a, slow)
	for _, c := range res.Cells {
		if m := c.Metrics[0]; !m.Regression {
			t.Errorf("15%% slower: %s p50 %+.1f%% p=%.3g not a significant regression", c.Key, 100*m.Change, m.P)
		}
	}
	if err := res.Check(10, false); err == nil {
		t.Error("the gate at 10% let a 15% slowdown through")
	}
}

// One run a side: the comparison says it cannot judge noise, and marks
// only changes of 20% or more.
func TestCompareOneRunASide(t *testing.T) {
	a := side(t, 1, 1, func(int) float64 { return 1 })
	b := side(t, 1, 2, func(int) float64 { return 1.1 })
	res := compareSides(t, a, b)
	if !strings.Contains(res.Note, "make 5 or more runs a side") {
		t.Errorf("note %q", res.Note)
	}
	for _, c := range res.Cells {
		for _, m := range c.Metrics {
			if m.Significant {
				t.Errorf("one run a side: a %+.1f%% change marked", 100*m.Change)
			}
		}
	}
	c := side(t, 1, 3, func(int) float64 { return 1.5 })
	if res := compareSides(t, a, c); !res.Cells[0].Metrics[0].Regression {
		t.Error("one run a side: a 50% slowdown not marked")
	}
}

func TestLoadSideRefusesMixedWorkloads(t *testing.T) {
	root := side(t, 2, 1, func(int) float64 { return 1 })
	r, err := results.Load(filepath.Join(root, "run-1"))
	if err != nil {
		t.Fatal(err)
	}
	r.Workload = map[string]any{"name": "other"}
	if err := r.Save(filepath.Join(root, "run-1")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadSide(root); err == nil || !strings.Contains(err.Error(), "name is synthetic") {
		t.Errorf("mixed workloads: %v", err)
	}
	if _, err := LoadSide(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no run directories") {
		t.Errorf("empty directory: %v", err)
	}
}
