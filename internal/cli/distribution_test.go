package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/workload"
)

// The shipped mixed-sweep runs, verified, over the embedded server on
// TCP: no bad value, one cell per threshold named by the mix, and at a
// middle threshold both protocols for gets and sets. report and the
// summary say which distribution the sizes came from.
func TestRunMixedSweep(t *testing.T) {
	const file = "../../workloads/mixed-sweep.yaml"
	w, err := workload.LoadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	stdout, stderr, err := runCLIErr(t, "run", file, "--transport", "tcp", "--warmup", "0", "--duration", "200ms", "-o", out, "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	dir := strings.TrimSpace(stdout)
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Transport.Embedded || r.EndReason != results.EndCompleted || r.Verify.Checked == 0 ||
		r.Verify.Mismatches+r.Verify.Missing+r.Verify.Torn != 0 {
		t.Fatalf("run: transport %+v end %q verify %+v", r.Transport, r.EndReason, r.Verify)
	}
	spec, mean := w.Values.Distribution.Spec, int(w.Values.Distribution.MeanSize())
	ths := w.SortedThresholds()
	middle := int(ths[len(ths)/2])
	seen := map[string]bool{}
	for _, c := range r.Cells {
		if c.Distribution != spec || c.ValueSize != mean || c.Failures() != 0 {
			t.Errorf("%s: distribution %q size %d failures %d; want %q at %d, none failed", c.Name(), c.Distribution, c.ValueSize, c.Failures(), spec, mean)
		}
		if c.Threshold == middle && c.Count > 0 {
			seen[c.Op+"/"+c.Protocol] = true
		}
	}
	for _, want := range []string{"get/eager", "get/rendezvous", "set/eager", "set/rendezvous"} {
		if !seen[want] {
			t.Errorf("threshold %d: no %s cell; have %v", middle, want, seen)
		}
	}
	sum, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil || !strings.Contains(string(sum), "values: "+spec) {
		t.Errorf("summary.txt does not name the distribution: %v\n%s", err, sum)
	}
	rep, err := runCLI(t, "report", dir)
	if err != nil || !strings.Contains(rep, "values:     "+spec) {
		t.Errorf("report does not name the distribution: %v\n%s", err, rep)
	}
}

// tune measures fixed sizes and says so of a distribution.
func TestTuneRefusesDistribution(t *testing.T) {
	_, stderr, err := runCLIErr(t, "tune", "../../workloads/mixed-sweep.yaml", "-o", t.TempDir())
	if err == nil || !strings.Contains(err.Error()+stderr, "does not tune on a distribution") {
		t.Errorf("tune on a distribution: %v\n%s", err, stderr)
	}
}

// The shipped etc runs, verified, over the embedded server on TCP with
// keys of drawn sizes: the server takes the longest key, verify finds no
// bad value, and results.json records the keys' law beside their longest
// size.
func TestRunETCKeySizes(t *testing.T) {
	const file = "../../workloads/etc.yaml"
	out := t.TempDir()
	stdout, stderr, err := runCLIErr(t, "run", file, "--transport", "tcp", "--verify", "--connections", "2", "--depth", "2",
		"--warmup", "0", "--duration", "200ms", "-o", out, "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	r, err := results.Load(strings.TrimSpace(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Transport.Embedded || r.EndReason != results.EndCompleted || r.Verify.Checked == 0 ||
		r.Verify.Mismatches+r.Verify.Missing+r.Verify.Torn != 0 {
		t.Fatalf("run: transport %+v end %q verify %+v", r.Transport, r.EndReason, r.Verify)
	}
	wl, _ := r.Workload.(map[string]any)
	keys, _ := wl["keys"].(map[string]any)
	if keys["size"] != 250.0 || keys["size_distribution"] != "etc, max: 250B" {
		t.Errorf("results.json keys %v: want size 250 and size_distribution \"etc, max: 250B\"", keys)
	}
}
