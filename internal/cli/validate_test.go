package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runValidate(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newValidateCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(good, []byte("values: {sizes: [4KiB]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("values: {sizes: [4KiB]}\nkeys:\n  count: -1\n  colour: red\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	out, err := runValidate(t, good)
	if err != nil || out != good+": ok\n" {
		t.Fatalf("good file: %q, %v", out, err)
	}

	out, err = runValidate(t, good, bad)
	if err == nil {
		t.Fatal("bad file: no error")
	}
	if ExitCode(err) == 0 {
		t.Fatal("exit code 0")
	}
	for _, want := range []string{
		good + ": ok\n",
		bad + ":3:3: keys.count: must be at least 1, got -1\n",
		bad + ":4:3: keys.colour: unknown field \"colour\"",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	if _, err := runValidate(t, filepath.Join(dir, "missing.yaml")); err == nil {
		t.Fatal("missing file: no error")
	}
	if _, err := runValidate(t); err == nil {
		t.Fatal("no arguments: no error")
	}
}

// The command is reachable from the root.
func TestValidateRegistered(t *testing.T) {
	root := NewRoot()
	c, _, err := root.Find([]string{"validate"})
	if err != nil || c.Name() != "validate" {
		t.Fatalf("validate not registered: %v", err)
	}
}

func TestValidateShippedWorkloads(t *testing.T) {
	files, _ := filepath.Glob("../../workloads/*.yaml")
	if len(files) == 0 {
		t.Fatal("no shipped workloads")
	}
	out, err := runValidate(t, files...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if n := strings.Count(out, ": ok\n"); n != len(files) {
		t.Fatalf("%d ok lines for %d files:\n%s", n, len(files), out)
	}
}

// validate reads a replayed trace to its end: its first 20 problems at
// their lines, then how many more.
func TestValidateReadsTheTrace(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 30000 {
		op := "get"
		if i%1000 == 999 { // lines 1000, 2000, ..., 30000: 30 problems
			op = "peek"
		}
		fmt.Fprintf(&b, "%d,k%d,3,10,1,%s,0\n", i/300, i%50, op)
	}
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte(b.String()), 0o644)
	wl := filepath.Join(dir, "w.yaml")
	os.WriteFile(wl, []byte("trace: {file: t.csv}\n"), 0o644)
	out, err := runValidate(t, wl)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"t.csv:1000: operation \"peek\"", "t.csv:20000: operation", "... and 10 more\n", "t.csv: 30 problems"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "t.csv:21000:") {
		t.Errorf("more than 20 problems listed:\n%s", out)
	}
}
