package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/internal/trace/synth"
)

const syntheticTrace = "../../workloads/traces/twitter-synthetic.csv.zst"

func TestTraceStats(t *testing.T) {
	want, err := synth.Twitter(io.Discard, synth.Default)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "trace", "stats", syntheticTrace)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"trace           " + syntheticTrace + " (twitter)",
		fmt.Sprintf("requests        %d over", want.Requests),
		fmt.Sprintf("ops             get %d (", want.Get),
		fmt.Sprintf("distinct keys   %d (exact)", want.DistinctKeys),
		"zipf alpha      0.9",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}

	out, err = runCLI(t, "trace", "stats", syntheticTrace, "--json", "--format", "twitter")
	if err != nil {
		t.Fatal(err)
	}
	var s trace.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if s.Requests != want.Requests || s.Ops != (trace.OpCounts{Get: want.Get, Set: want.Set, Delete: want.Delete}) {
		t.Errorf("JSON: %d requests %+v, want %d, get %d set %d delete %d", s.Requests, s.Ops, want.Requests, want.Get, want.Set, want.Delete)
	}
}

func TestTraceStatsProblems(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte("0,a,1,2,3,get,0\n0,a,1,2,3,what,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "trace", "stats", path)
	if err == nil || ExitCode(err) != 1 || !strings.Contains(err.Error(), "1 malformed line skipped") {
		t.Errorf("error %v", err)
	}
	if !strings.Contains(strings.Join(strings.Fields(out), " "), "problems 1 malformed line skipped; the first: "+path+":2: operation") {
		t.Errorf("output:\n%s", out)
	}
	if _, err := runCLI(t, "trace", "stats", path, "--format", "csv"); err == nil || !strings.Contains(err.Error(), "--format") {
		t.Errorf("--format csv: %v", err)
	}
	if _, err := runCLI(t, "trace", "stats", filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing file: no error")
	}
}

func TestTraceValidate(t *testing.T) {
	out, err := runCLI(t, "trace", "validate", syntheticTrace)
	if err != nil || !strings.HasPrefix(out, syntheticTrace+": ok, ") {
		t.Fatalf("%q %v", out, err)
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	var b strings.Builder
	b.WriteString(trace.KvbenchHeader + "\n")
	for i := range 25 {
		fmt.Fprintf(&b, "%d,get,k,1\n%d,put,k,1\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runCLI(t, "trace", "validate", path, "--format", "kvbench")
	if err == nil || ExitCode(err) == 0 {
		t.Fatal("25 problems: no error")
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 21 || lines[0] != path+`:3: op "put": want get, set or delete` || lines[20] != "... and 5 more" {
		t.Errorf("output:\n%s", out)
	}
	if !strings.Contains(err.Error(), "25 problems (25 well-formed requests)") {
		t.Errorf("error %v", err)
	}
	// The same file read as Twitter's: every line is a problem.
	if _, err := runCLI(t, "trace", "validate", path); err == nil {
		t.Error("a kvbench trace validated as twitter")
	}
}
