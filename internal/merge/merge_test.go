package merge

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// ranks builds n synthetic rank runs in temporary directories.
func ranks(t *testing.T, n int, mod func(i int, r *results.Run)) []Part {
	t.Helper()
	var parts []Part
	for i := range n {
		dir := t.TempDir()
		run, err := resultstest.Build(dir, resultstest.Spec{Ops: []string{"get", "set"}, Sizes: []int{64, 65536}, Thresholds: []int{4096},
			Samples: 3000, Intervals: 3, Seed: uint64(i + 1), Model: resultstest.Default})
		if err != nil {
			t.Fatal(err)
		}
		run.Rank = &results.Rank{Rank: i, Ranks: n}
		run.Host.Hostname = "client" + string(rune('a'+i))
		if mod != nil {
			mod(i, run)
		}
		parts = append(parts, Part{Run: run, Dir: dir})
	}
	return parts
}

// The merge adds what the ranks measured: counts, throughput and
// connections sum, and the merged histogram and intervals hold every
// rank's values, checked against a histogram rebuilt from the ranks'
// buckets rather than merged.
func TestMergeAddsTheRanks(t *testing.T) {
	parts := ranks(t, 3, nil)
	run, logs, warnings, err := Runs(parts)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("%v, warnings %v", err, warnings)
	}
	if len(logs) != len(parts[0].Run.Cells) || len(run.Ranks) != 3 || run.Ranks[2].Host != "clientc" {
		t.Fatalf("%d cells, ranks %+v", len(logs), run.Ranks)
	}
	for i, cl := range logs {
		c := cl.Cell
		var count int64
		var ops float64
		rebuilt := results.NewHistogram()
		for _, p := range parts {
			rc := p.Run.Cells[i]
			count += rc.Count
			ops += rc.ThroughputOps
			h, _ := results.CellHistogram(rc)
			for _, b := range h.Distribution() {
				if b.Count > 0 {
					rebuilt.RecordValues(b.From, b.Count)
				}
			}
		}
		if c.Count != count || c.ThroughputOps != ops || c.Load.Connections != 3 {
			t.Errorf("%s: count %d ops/s %g connections %d, want %d %g 3", c.Name(), c.Count, c.ThroughputOps, c.Load.Connections, count, ops)
		}
		for _, q := range []float64{50, 99, 99.9} {
			h, _ := results.CellHistogram(c)
			if got, want := h.ValueAtQuantile(q), rebuilt.ValueAtQuantile(q); got != want {
				t.Errorf("%s: p%g %d, the ranks' values give %d", c.Name(), q, got, want)
			}
		}
		var ivCount int64
		for _, iv := range cl.Intervals {
			ivCount += iv.TotalCount()
		}
		if len(cl.Intervals) != 3 || ivCount != count {
			t.Errorf("%s: %d intervals holding %d values, want 3 holding %d", c.Name(), len(cl.Intervals), ivCount, count)
		}
	}
	// And it writes a results directory that reads back.
	dir, err := results.WriteRun(t.TempDir(), "merged", run, logs, report.WriteSummary)
	if err != nil {
		t.Fatal(err)
	}
	back, err := results.Load(dir)
	if err != nil || len(back.Ranks) != 3 || back.Rank != nil {
		t.Fatalf("read back: %v, %+v", err, back)
	}
}

func TestMergeRefuses(t *testing.T) {
	cases := map[string]struct {
		mod  func(i int, r *results.Run)
		want string
	}{
		"workload": {func(i int, r *results.Run) {
			if i == 1 {
				r.Workload = map[string]any{"name": "synthetic", "load": map[string]any{"connections": 4.0}}
			}
		}, "load.connections is absent in the first and 4 in the second"},
		"not a rank": {func(i int, r *results.Run) {
			if i == 2 {
				r.Rank = nil
			}
		}, "was not run as one of several ranks"},
		"server and more": {func(i int, r *results.Run) {
			r.Workload = map[string]any{"target": map[string]any{"server": fmt.Sprint("10.0.0.", i)}, "timeout": float64(i)}
		}, "timeout is 0 in the first and 1"},
		"twice": {func(i int, r *results.Run) { r.Rank.Rank = min(i, 1) }, "are both rank 1"},
		"jobs":  {func(i int, r *results.Run) { r.Rank.Ranks = 3 + i%2 }, "runs of different jobs"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, _, err := Runs(ranks(t, 3, c.mod))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
}

func TestMergeWarns(t *testing.T) {
	parts := ranks(t, 3, func(i int, r *results.Run) {
		d := time.Duration(i) * time.Hour
		r.Start, r.End = r.Start.Add(d), r.End.Add(d)
	})
	_, _, warnings, err := Runs(parts[:2])
	if err != nil {
		t.Fatal(err)
	}
	w := strings.Join(warnings, "\n")
	if !strings.Contains(w, "ranks [2] of 3 are missing") || !strings.Contains(w, "do not overlap") {
		t.Errorf("warnings %q", w)
	}
}

// The merged run ends as its worst rank did: the first failure (a rank's
// partial checkpoint is one), else interrupted, else completed.
func TestMergeEndReason(t *testing.T) {
	for _, c := range []struct {
		ranks []string
		want  string
	}{
		{[]string{results.EndCompleted, results.EndCompleted}, results.EndCompleted},
		{[]string{results.EndCompleted, results.EndInterrupted}, results.EndInterrupted},
		{[]string{results.EndInterrupted, results.EndError("refused"), results.EndError("late")}, results.EndError("rank 1: refused")},
		{[]string{results.EndPartial, results.EndPartial}, results.EndError("rank 0: " + results.EndPartial)},
	} {
		parts := ranks(t, len(c.ranks), func(i int, r *results.Run) { r.EndReason = c.ranks[i] })
		run, _, _, err := Runs(parts)
		if err != nil {
			t.Fatal(err)
		}
		if run.EndReason != c.want {
			t.Errorf("ranks ending %q: merged %q, want %q", c.ranks, run.EndReason, c.want)
		}
	}
}
