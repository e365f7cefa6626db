package cli

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	rdmakvstore "github.com/kvbench/kvbench/internal/store/rdmakv"
	"github.com/kvbench/kvbench/internal/workload"
)

// checkReceiveMemory wants every cell to carry what verbs registers to
// receive at its threshold (over tcp too), the server's growing with the
// threshold; a build without verbs records none.
func checkReceiveMemory(t *testing.T, cells []results.Cell) {
	t.Helper()
	if _, _, err := rdmakvstore.ReceiveMemory(1024, 16, 1, 1); err != nil {
		for _, c := range cells {
			if c.ReceiveMemory != nil {
				t.Errorf("%s: receive memory %+v in a build without verbs", c.Name(), c.ReceiveMemory)
			}
		}
		return
	}
	server := map[int]int64{}
	for _, c := range cells {
		m := c.ReceiveMemory
		if m == nil || m.Server <= 0 || m.Client <= 0 {
			t.Errorf("%s: receive memory %+v", c.Name(), m)
			continue
		}
		if s, ok := server[c.Threshold]; ok && s != m.Server {
			t.Errorf("%s: server's receive memory %d, another cell of its threshold %d", c.Name(), m.Server, s)
		}
		server[c.Threshold] = m.Server
	}
	ths := slices.Sorted(maps.Keys(server))
	for i := 1; i < len(ths); i++ {
		if server[ths[i]] <= server[ths[i-1]] {
			t.Errorf("server's receive memory %d at threshold %d, not above %d at %d", server[ths[i]], ths[i], server[ths[i-1]], ths[i-1])
		}
	}
}

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
	checkReceiveMemory(t, r.Cells)
	sum, err := os.ReadFile(filepath.Join(dir, results.SummaryFile))
	if err != nil || !strings.Contains(string(sum), "values: "+spec) || !strings.Contains(string(sum), "\n"+results.Whole+": ") {
		t.Errorf("summary.txt does not name the distribution: %v\n%s", err, sum)
	}
	rep, err := runCLI(t, "report", dir)
	if err != nil || !regexp.MustCompile(`\nvalues: +`+regexp.QuoteMeta(spec)).MatchString(rep) {
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
