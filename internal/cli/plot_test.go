package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// connSweepRun writes a synthetic run shaped like connections-sweep.yaml
// (gets, thresholds 0 and 2 MiB) driven with conns connections.
func connSweepRun(t *testing.T, conns int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), fmt.Sprintf("connections-sweep-%d", conns))
	run, err := resultstest.Build(dir, resultstest.Spec{Ops: []string{"get"}, Sizes: []int{64, 4096, 1 << 20},
		Thresholds: []int{0, 2 << 20}, Samples: 400, Intervals: 2, Seed: 1, Model: resultstest.Default})
	if err != nil {
		t.Fatal(err)
	}
	run.Workload = map[string]any{"name": "connections-sweep", "load": map[string]any{"connections": conns, "depth": 1}}
	for i := range run.Cells {
		run.Cells[i].Load.Connections = conns
	}
	if err := run.Save(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runCLIErr is runCLI returning stderr too.
func runCLIErr(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	root := NewRoot()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errb)
	err = root.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

func TestPlotCommandSeveralRuns(t *testing.T) {
	a, b := connSweepRun(t, 1), connSweepRun(t, 4)
	outDir := filepath.Join(t.TempDir(), "plots")
	out, stderr, err := runCLIErr(t, "plot", a, b, "-o", outDir)
	if err != nil {
		t.Fatal(err)
	}
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
	var got []string
	for _, f := range strings.Fields(out) {
		got = append(got, filepath.Base(f))
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v, empty", f, err)
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
	svg, err := os.ReadFile(filepath.Join(outDir, "compare-throughput-mib-get.svg"))
	if err != nil || !bytes.Contains(svg, []byte("4 conn rendezvous")) {
		t.Errorf("svg has no \"4 conn rendezvous\" legend entry (%v)", err)
	}

	// A different workload is drawn, with a warning.
	other := synthRun(t, 2, nil)
	_, stderr, err = runCLIErr(t, "plot", a, other, "-o", outDir, "--format", "png")
	if err != nil || !strings.Contains(stderr, "kvbench plot: warning:") || !strings.Contains(stderr, "different workloads") {
		t.Errorf("different workloads: err %v, stderr %q", err, stderr)
	}

	// A missing directory names itself and fails.
	missing := filepath.Join(t.TempDir(), "no-such-run")
	_, _, err = runCLIErr(t, "plot", a, missing, "-o", outDir)
	if err == nil || ExitCode(err) == 0 || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing run directory: %v (exit %d)", err, ExitCode(err))
	}
}

// The results.json of a run is accepted in place of its directory.
func TestPlotCommandSeveralRunsResultsFile(t *testing.T) {
	a, b := connSweepRun(t, 1), connSweepRun(t, 16)
	outDir := t.TempDir()
	if _, _, err := runCLIErr(t, "plot", filepath.Join(a, results.ResultsFile), b, "-o", outDir, "--format", "svg"); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(outDir, "compare-throughput-ops-get.svg"))
	if err != nil || !bytes.Contains(svg, []byte("16 conn eager")) || !bytes.Contains(svg, []byte("1 conn eager")) {
		t.Errorf("legend entries missing (%v)", err)
	}
}
