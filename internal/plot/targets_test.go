package plot

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

var storeSizes = []int{64, 4096, 65536}

// storeRun builds a run of one kind of store over one workload, written
// to dir when dir is not empty. The workload document names the target
// and thresholds as a real run's would, so only those differ.
func storeRun(t *testing.T, dir, kind, version, transport string, thresholds ...int) RunDir {
	t.Helper()
	run, err := resultstest.Build("", resultstest.Spec{
		Ops: []string{"get", "set"}, Sizes: storeSizes, Thresholds: thresholds,
		Samples: 300, Intervals: 1, Seed: uint64(len(kind) + len(thresholds)), Model: resultstest.Default,
		Kind: kind, ServerVersion: version,
	})
	if err != nil {
		t.Fatal(err)
	}
	run.Transport.Name = transport
	run.Workload = map[string]any{"name": "kv", "target": map[string]any{"kind": kind, "transport": transport},
		"thresholds": thresholds, "load": map[string]any{"mode": "closed", "connections": 1, "depth": 1}}
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

// storeRuns are redis, memcached, rdmakv over tcp at one threshold and
// rdmakv over verbs at two.
func storeRuns(t *testing.T, dir string) []RunDir {
	at := func(name string) string {
		if dir == "" {
			return ""
		}
		return filepath.Join(dir, name)
	}
	return []RunDir{
		storeRun(t, at("redis"), "redis", "7.0.15", "tcp"),
		storeRun(t, at("memcached"), "memcached", "1.6.18", "tcp"),
		storeRun(t, at("tcp"), results.KindRdmakv, "", "tcp", 4096),
		storeRun(t, at("verbs"), results.KindRdmakv, "", "verbs", 4096, 65536),
	}
}

func TestStoreOverlay(t *testing.T) {
	runs := storeRuns(t, "")
	figs, err := CompareFigures(runs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range figs {
		got = append(got, f.Name)
	}
	per := []string{"compare-throughput-ops-", "compare-throughput-mib-", "compare-latency-p50-", "compare-latency-p99-"}
	var want []string
	for _, op := range []string{"get", "set"} {
		for _, p := range per {
			want = append(want, p+op)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("figures %v, want %v", got, want)
	}
	lines := []string{"redis 7.0.15", "memcached 1.6.18", "rdmakv tcp", "rdmakv verbs 4KiB", "rdmakv verbs 64KiB"}
	for _, f := range figs {
		p := f.Panels[0]
		if got := names(p); !slices.Equal(got, lines) {
			t.Errorf("%s: series %q, want %q", f.Name, got, lines)
		}
		if !strings.Contains(p.Plot.Title.Text, "by target") {
			t.Errorf("%s: title %q", f.Name, p.Plot.Title.Text)
		}
	}
	// Each line is its run's cells: redis's p99 line holds redis's p99s,
	// the verbs run's 64KiB line its cells at threshold 64KiB.
	checkLine(t, figs[3].Panels[0].Series[0], runs[0].Run, "get", 0, func(c results.Cell) float64 { return float64(c.Latency.P99) })
	checkLine(t, figs[2].Panels[0].Series[4], runs[3].Run, "get", 65536, func(c results.Cell) float64 { return float64(c.Latency.P50) })
}

// checkLine says s is op's cells of run at threshold, one point per size.
func checkLine(t *testing.T, s Series, run *results.Run, op string, threshold int, get func(results.Cell) float64) {
	t.Helper()
	var want []float64
	for _, c := range run.Cells {
		if c.Op == op && c.Threshold == threshold {
			want = append(want, get(c))
		}
	}
	var got []float64
	for i, pt := range s.Points {
		got = append(got, pt.Y)
		if pt.X != float64(storeSizes[i]) {
			t.Errorf("%s: point %d at size %v, want %d", s.Name, i, pt.X, storeSizes[i])
		}
	}
	if len(want) != len(storeSizes) || !slices.Equal(got, want) {
		t.Errorf("%s: %v, want %v", s.Name, got, want)
	}
}

func TestSaveStoreOverlay(t *testing.T) {
	dir := t.TempDir()
	runs := storeRuns(t, filepath.Join(dir, "runs"))
	out := filepath.Join(dir, "plots")
	paths, warnings, err := SaveCompare(runs, Options{OutDir: out, Formats: []string{"svg"}})
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	if len(paths) != 8 {
		t.Errorf("wrote %v, want 4 figures per op", paths)
	}
	for _, p := range paths {
		for _, label := range []string{"redis 7.0.15", "memcached 1.6.18", "rdmakv tcp", "rdmakv verbs 64KiB"} {
			if !fileContains(t, p, label) {
				t.Errorf("%s: legend lacks %q", filepath.Base(p), label)
			}
		}
	}
	// Stores are compared under one load: an rdmakv run driven harder is
	// warned about, where an overlay of one store would not be.
	runs[2].Run.Workload.(map[string]any)["load"] = map[string]any{"mode": "closed", "connections": 4, "depth": 1}
	w := RunDifferences(runs)
	if len(w) != 1 || !strings.Contains(w[0].Error(), "load.connections differ") {
		t.Errorf("warnings %v", w)
	}
}

func TestBaselineAlone(t *testing.T) {
	run := storeRun(t, "", "memcached", "1.6.18", "tcp").Run
	f, err := Latency(run, "get")
	if err != nil || f == nil {
		t.Fatal(f, err)
	}
	p := f.Panels[0]
	if got, want := names(p), []string{"memcached p50", "memcached p99", "memcached p99.9"}; !slices.Equal(got, want) {
		t.Errorf("latency series %q, want %q", got, want)
	}
	if len(p.Markers) != 0 {
		t.Errorf("threshold markers %v on a baseline", p.Markers)
	}
	f, err = Throughput(run, "set", OpsPerSec)
	if err != nil || f == nil {
		t.Fatal(f, err)
	}
	checkLine(t, f.Panels[0].Series[0], run, "set", 0, func(c results.Cell) float64 { return c.ThroughputOps })
	if got := names(f.Panels[0]); !slices.Equal(got, []string{"memcached"}) {
		t.Errorf("throughput series %q", got)
	}
	f, err = Percentiles(run, "get", 4096)
	if err != nil || f == nil || !slices.Equal(names(f.Panels[0]), []string{"memcached"}) {
		t.Errorf("percentiles %v, %v", f, err)
	}
}
