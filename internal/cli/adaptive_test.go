package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/results"
)

// adaptiveWorkload sweeps a mix of small and large values at a fixed
// threshold and under the adaptive policy, verified. The policy may go
// up to 128 KiB, above rdmakv's default max eager, which the embedded
// server must then take.
const adaptiveWorkload = `name: adapt
keys: {count: 64, size: 16}
values: {distribution: {weighted: {64B: 50, 16KiB: 50}}}
thresholds: [1KiB, adaptive]
adaptive: {explore: 0.1, window: 500ms, max_threshold: 128KiB}
mix: {get: 0.5, set: 0.5}
load: {connections: 2, depth: 2}
phases: {warmup: {ops: 0}, measure: {ops: 3000}}
verify: true
`

// adaptive in a workload's thresholds is a cell like any other, run
// beside the fixed thresholds: its cells are labelled adaptive (threshold
// -1 in results.json), every value comes back whole, report names it,
// and the whole-workload figure draws it level across the thresholds.
// results.json's workload records the adaptive block as given.
func TestRunAdaptiveCell(t *testing.T) {
	dir := t.TempDir()
	wl := filepath.Join(dir, "w.yaml")
	if err := os.WriteFile(wl, []byte(adaptiveWorkload), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runCLIErr(t, "run", wl, "--transport", "tcp", "-o", dir, "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	rd := strings.TrimSpace(stdout)
	r, err := results.Load(rd)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := r.Workload.(map[string]any)
	if got, want := fmt.Sprint(w["adaptive"]), "map[explore:0.1 max_threshold:131072 window:5e+08]"; got != want {
		t.Errorf("results.json workload.adaptive %s, want %s", got, want)
	}
	if r.Verify.Checked == 0 || r.Verify.Mismatches+r.Verify.Missing+r.Verify.Torn != 0 {
		t.Fatalf("verify %+v", r.Verify)
	}
	var adaptive, fixed int64
	for _, c := range r.Cells {
		switch {
		case c.Policy == results.PolicyAdaptive && c.Threshold == -1:
			adaptive += c.Count
		case c.Policy == "" && c.Threshold == 1024:
			fixed += c.Count
		default:
			t.Errorf("%s: policy %q threshold %d", c.Name(), c.Policy, c.Threshold)
		}
	}
	if adaptive == 0 || fixed == 0 {
		t.Errorf("%d operations under the adaptive policy, %d at 1KiB: want both", adaptive, fixed)
	}
	rep, err := runCLI(t, "report", rd)
	if err != nil || !strings.Contains(rep, " adaptive ") {
		t.Errorf("report does not name the adaptive cells: %v\n%s", err, rep)
	}
	f, err := plot.WholeWorkload(r, plot.Distributions(r)[0])
	if err != nil || f == nil {
		t.Fatalf("whole-workload figure: %v", err)
	}
	found := false
	for _, s := range f.Panels[0].Series {
		found = found || s.Name == "adaptive p50" && len(s.Points) == 2 && s.Points[0].Y == s.Points[1].Y
	}
	if !found {
		t.Errorf("the p50 panel has no level adaptive line: %+v", f.Panels[0].Series)
	}
}

// adaptive is listed once, and is no negative number.
func TestAdaptiveThresholdRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ thresholds, want string }{
		{"[adaptive, 1KiB, adaptive]", "thresholds[2]: adaptive listed twice (also thresholds[0])"},
		{"[-1]", "thresholds[0]: must be from 0 to 1GiB, or adaptive, got -1"},
	} {
		wl := filepath.Join(dir, "w.yaml")
		text := strings.Replace(adaptiveWorkload, "[1KiB, adaptive]", c.thresholds, 1)
		if err := os.WriteFile(wl, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, stderr, err := runCLIErr(t, "validate", wl)
		if err == nil || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("%s: %v %s; want %q", c.thresholds, err, stderr, c.want)
		}
	}
}
