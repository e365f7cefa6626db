package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/results"
)

// A run measures the harness's own cost, keeps it in results.json,
// judges each cell's p50 against it, and report prints it.
func TestRunRecordsHarnessCost(t *testing.T) {
	harnessCostTime = 20 * time.Millisecond
	t.Cleanup(func() { harnessCostTime = 0 })
	var stdout bytes.Buffer
	if err := execute(hangGuard(t), &stdout, "run", "testdata/run-quick.yaml", "-o", t.TempDir(), "--quiet"); err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimSpace(stdout.String())
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Harness; h == nil || h.OverheadNs <= 0 || h.ClockReadNs <= 0 {
		t.Fatalf("results.json harness %+v: want the measured cost", h)
	}
	for _, c := range r.Cells {
		want, _ := results.OverheadCheck(c, r.Harness)
		if i := checkIndex(c.Checks, results.CheckOverhead); i < 0 || c.Checks[i] != want {
			t.Errorf("%s: checks %+v, want %+v among them", c.Hlog, c.Checks, want)
		}
	}
	out, err := runCLI(t, "report", dir)
	if err != nil {
		t.Fatal(err)
	}
	if line := "harness cost"; !strings.Contains(out, line) || !strings.Contains(out, "per clock read") {
		t.Errorf("report does not give the harness's cost:\n%s", out)
	}
}

func checkIndex(checks []results.Check, name string) int {
	for i, k := range checks {
		if k.Name == name {
			return i
		}
	}
	return -1
}
