package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
	"github.com/kvbench/kvbench/internal/store/memcached"
	"github.com/kvbench/kvbench/internal/store/redis"
)

// storeRunDir writes a synthetic run of one kind of store (rdmakv at
// threshold 4KiB) of the workload "kv", its target named in the workload
// as a real run's is.
func storeRunDir(t *testing.T, kind, version, transport string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), kind+"-"+transport)
	run, err := resultstest.Build(dir, resultstest.Spec{Ops: []string{"get"}, Sizes: []int{64, 4096, 65536},
		Thresholds: []int{4096}, Samples: 400, Intervals: 2, Seed: 1, Model: resultstest.Default,
		Kind: kind, ServerVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	run.Transport.Name = transport
	run.Workload = map[string]any{"name": "kv", "target": map[string]any{"kind": kind, "transport": transport}}
	if err := run.Save(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPlotCommandStores(t *testing.T) {
	redis := storeRunDir(t, redis.Kind, "7.0.15", "tcp")
	memcached := storeRunDir(t, memcached.Kind, "1.6.18", "tcp")
	verbs := storeRunDir(t, results.KindRdmakv, "", "verbs")
	outDir := t.TempDir()
	out, stderr, err := runCLIErr(t, "plot", redis, memcached, verbs, "-o", outDir, "--format", "svg")
	if err != nil || stderr != "" {
		t.Fatalf("%v, stderr %q", err, stderr)
	}
	var got []string
	for _, f := range strings.Fields(out) {
		got = append(got, filepath.Base(f))
		svg, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, label := range []string{"redis 7.0.15", "memcached 1.6.18", "rdmakv verbs"} {
			if !strings.Contains(string(svg), label) {
				t.Errorf("%s: no legend entry %q", f, label)
			}
		}
	}
	want := []string{"compare-throughput-ops-get.svg", "compare-throughput-mib-get.svg",
		"compare-latency-p50-get.svg", "compare-latency-p99-get.svg"}
	if !slices.Equal(got, want) {
		t.Errorf("wrote %v, want %v", got, want)
	}
}

func TestCompareCommandStores(t *testing.T) {
	redis := storeRunDir(t, redis.Kind, "7.0.15", "tcp")
	tcp := storeRunDir(t, results.KindRdmakv, "", "tcp")
	out, err := runCLI(t, "compare", redis, tcp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "note: A measured redis 7.0.15, B measured rdmakv (tcp); cells are matched by op and value size\n") {
		t.Errorf("no note on the stores:\n%s", out)
	}
	if !strings.Contains(out, "3 cells compared") || strings.Contains(out, "only in") {
		t.Errorf("want the 3 sizes matched, none alone:\n%s", out)
	}
}

func TestReportCommandStore(t *testing.T) {
	out, err := runCLI(t, "report", storeRunDir(t, memcached.Kind, "1.6.18", "tcp"))
	if err != nil || !strings.Contains(out, "target:     memcached 1.6.18\n") {
		t.Errorf("%v:\n%s", err, out)
	}
}
