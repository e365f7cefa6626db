package plot

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// sweepSizes are connections-sweep.yaml's value sizes: 64 B to 1 MiB, x4.
var sweepSizes = []int{64, 256, 1024, 4096, 16384, 65536, 262144, 1 << 20}

// connRun builds a run shaped like workloads/connections-sweep.yaml at
// conns connections and depth depth: gets only, thresholds 0 (all
// rendezvous) and 2 MiB (all eager). Throughput grows with connections,
// more for rendezvous; it is written to dir when dir is not empty.
func connRun(t *testing.T, dir string, conns, depth int) RunDir {
	t.Helper()
	run, err := resultstest.Build("", resultstest.Spec{
		Ops: []string{"get"}, Sizes: sweepSizes, Thresholds: []int{0, 2 << 20},
		Samples: 200, Intervals: 1, Seed: uint64(conns), Model: resultstest.Default,
	})
	if err != nil {
		t.Fatal(err)
	}
	run.Workload = map[string]any{"name": "connections-sweep",
		"load": map[string]any{"mode": "closed", "connections": conns, "depth": depth}}
	for i := range run.Cells {
		c := &run.Cells[i]
		c.Load = results.CellLoad{Mode: "closed", Connections: conns, Depth: depth}
		scale := 1 + 0.3*float64(conns-1)
		if c.Protocol == "rendezvous" {
			scale = float64(conns)
		}
		c.ThroughputOps *= scale
		c.ThroughputBytes *= scale
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := run.Save(dir); err != nil {
			t.Fatal(err)
		}
	}
	return RunDir{Run: run, Dir: dir}
}

func TestRunLabels(t *testing.T) {
	at := func(dir string, conns, depth int) RunDir {
		r := connRun(t, "", conns, depth)
		r.Dir = dir
		return r
	}
	cases := []struct {
		name string
		runs []RunDir
		want []string
	}{
		{"connections", []RunDir{at("r/a", 1, 1), at("r/b", 4, 1), at("r/c", 16, 1)}, []string{"1 conn", "4 conn", "16 conn"}},
		{"depth", []RunDir{at("r/a", 2, 1), at("r/b", 2, 2), at("r/c", 2, 8)}, []string{"depth 1", "depth 2", "depth 8"}},
		{"both", []RunDir{at("r/a", 1, 1), at("r/b", 4, 8)}, []string{"1 conn depth 1", "4 conn depth 8"}},
		{"neither", []RunDir{at("results/x-20260101-000000", 4, 1), at("/tmp/y/", 4, 1)}, []string{"x-20260101-000000", "y"}},
		{"repeat", []RunDir{at("r/a", 1, 1), at("r/b", 4, 1), at("r/c", 4, 1)}, []string{"1 conn (a)", "4 conn (b)", "4 conn (c)"}},
		{"same dir", []RunDir{at("r/a", 1, 1), at("q/a", 1, 1)}, []string{"a #1", "a #2"}},
	}
	for _, c := range cases {
		if got := RunLabels(c.runs); !slices.Equal(got, c.want) {
			t.Errorf("%s: labels %q, want %q", c.name, got, c.want)
		}
	}
	// Without cell loads the workload document says.
	r := connRun(t, "", 4, 2)
	for i := range r.Run.Cells {
		r.Run.Cells[i].Load = results.CellLoad{}
	}
	if c, d := runLoad(r.Run); c != 4 || d != 2 {
		t.Errorf("runLoad from workload: %d conn, depth %d; want 4, 2", c, d)
	}
}

func TestCompareFigures(t *testing.T) {
	runs := []RunDir{connRun(t, "", 1, 1), connRun(t, "", 4, 1), connRun(t, "", 16, 1)}
	figs, err := CompareFigures(runs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range figs {
		got = append(got, f.Name)
	}
	if want := []string{"compare-throughput-ops-get", "compare-throughput-mib-get", "compare-latency-p50-get"}; !slices.Equal(got, want) {
		t.Fatalf("figures %v, want %v", got, want)
	}
	want := []string{"1 conn rendezvous", "1 conn eager", "4 conn rendezvous", "4 conn eager", "16 conn rendezvous", "16 conn eager"}
	for _, f := range figs {
		p := f.Panels[0]
		if got := names(p); !slices.Equal(got, want) {
			t.Errorf("%s: series %q, want %q", f.Name, got, want)
		}
		for _, s := range p.Series {
			if len(s.Points) != len(sweepSizes) {
				t.Errorf("%s %s: %d points, want %d", f.Name, s.Name, len(s.Points), len(sweepSizes))
			}
		}
		if p.Plot.X.Min != 64 || p.Plot.X.Max != 1<<20 {
			t.Errorf("%s: x range %v..%v", f.Name, p.Plot.X.Min, p.Plot.X.Max)
		}
		if !strings.Contains(p.Plot.Title.Text, "by connections") {
			t.Errorf("%s: title %q", f.Name, p.Plot.Title.Text)
		}
	}
	// ops/s: 16 connections of rendezvous at 1 MiB is 16x one connection's.
	s := figs[0].Panels[0].Series
	if r := s[4].Points[7].Y / s[0].Points[7].Y; r < 15.9 || r > 16.1 {
		t.Errorf("16 conn / 1 conn rendezvous at 1MiB = %v, want 16", r)
	}
	// Eager solid, rendezvous dashed.
	names, dash, ok := lineStyles(groups(runs[0].Run, "get"))
	if !ok || !slices.Equal(names, []string{"rendezvous", "eager"}) || len(dash[0]) == 0 || dash[1] != nil {
		t.Errorf("line styles %q %v %v", names, dash, ok)
	}
	// A run with a threshold inside the sizes names its lines by threshold.
	mixed := RunDir{Run: testRun(t, ""), Dir: "sweep"}
	names, _, ok = lineStyles(groups(mixed.Run, "get"))
	if ok || !slices.Equal(names, []string{"t=0B", "t=4KiB", "t=64KiB"}) {
		t.Errorf("threshold sweep line names %q (by protocol %v)", names, ok)
	}
}

func TestSaveCompare(t *testing.T) {
	dir := t.TempDir()
	var runs []RunDir
	for _, n := range []int{1, 4, 16} {
		runs = append(runs, connRun(t, filepath.Join(dir, "runs", fmt.Sprintf("c%d", n)), n, 1))
	}
	out := filepath.Join(dir, "plots")
	paths, warnings, err := SaveCompare(runs, Options{OutDir: out})
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	var got []string
	for _, p := range paths {
		got = append(got, filepath.Base(p))
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v, empty", p, err)
		}
	}
	want := []string{
		"compare-throughput-ops-get.png", "compare-throughput-ops-get.svg",
		"compare-throughput-mib-get.png", "compare-throughput-mib-get.svg",
		"compare-latency-p50-get.png", "compare-latency-p50-get.svg",
	}
	if !slices.Equal(got, want) {
		t.Errorf("wrote %v, want %v", got, want)
	}
	if _, _, err := SaveCompare(runs[:1], Options{OutDir: out}); err == nil {
		t.Error("one run accepted")
	}
}

func TestRunDifferences(t *testing.T) {
	a, b := connRun(t, "", 1, 1), connRun(t, "", 16, 4)
	a.Dir, b.Dir = "a", "b"
	if w := RunDifferences([]RunDir{a, b}); len(w) != 0 {
		t.Errorf("connections and depth only: warnings %v", w)
	}
	b.Run.Workload.(map[string]any)["mix"] = map[string]any{"get": 0.5}
	b.Run.Transport.Name = "verbs"
	w := RunDifferences([]RunDir{a, b})
	if len(w) != 2 || !strings.Contains(w[0].Error(), "different workloads (mix differ)") || !strings.Contains(w[1].Error(), "a ran on tcp, b on verbs") {
		t.Errorf("warnings %v", w)
	}
}
