package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

// profileWorkload is a workload of 1 KiB values, gets and sets, at two
// thresholds a profile replaces.
const profileWorkload = `name: prof
keys: {count: 64, size: 16}
values: {sizes: [1KiB]}
thresholds: [512B, 4KiB]
mix: {get: 0.5, set: 0.5}
load: {connections: 2, depth: 2}
phases: {warmup: {ops: 0}, measure: {ops: 2000}}
verify: true
`

// writeProfile writes a profile sending gets rendezvous from 1 byte and
// sets eager up to 64 KiB at any load, and a workload beside it.
func writeProfile(t *testing.T) (dir, wl, prof string) {
	t.Helper()
	dir = t.TempDir()
	wl, prof = filepath.Join(dir, "w.yaml"), filepath.Join(dir, "profile.json")
	p := `{"kvbench_profile": 1, "default_threshold": 4096, "rules": [
		{"op": "get", "threshold": 0},
		{"op": "set", "threshold": 65536}]}`
	if err := os.WriteFile(prof, []byte(p), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(wl, []byte(profileWorkload), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, wl, prof
}

// run --profile applies a profile in place of the workload's thresholds:
// one cell per (op, value size), labelled profile, each op taking the
// protocol its own threshold gives, and the run says which profile and
// what it gave.
func TestRunProfile(t *testing.T) {
	dir, wl, prof := writeProfile(t)
	stdout, stderr, err := runCLIErr(t, "run", wl, "--profile", prof, "--transport", "tcp", "-o", dir, "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "applying profile "+prof+": get 0B, set 64KiB at 4 in flight") ||
		!strings.Contains(stderr, "thresholds [512B 4KiB] do not apply") {
		t.Errorf("stderr does not say what the profile applies:\n%s", stderr)
	}
	r, err := results.Load(strings.TrimSpace(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if r.Verify.Checked == 0 || r.Verify.Mismatches+r.Verify.Missing+r.Verify.Torn != 0 || !strings.HasPrefix(r.Target.Profile, prof+": ") {
		t.Fatalf("verify %+v, target %+v", r.Verify, r.Target)
	}
	want := map[string]string{"get": "rendezvous", "set": "eager"}
	for _, c := range r.Cells {
		if c.Policy != results.PolicyProfile || c.Threshold != 65536 || c.Count > 0 && c.Protocol != want[c.Op] {
			t.Errorf("%s: policy %q threshold %d protocol %s, count %d; want profile at 65536, %s", c.Name(), c.Policy, c.Threshold, c.Protocol, c.Count, want[c.Op])
		}
		delete(want, c.Op)
	}
	if len(want) != 0 {
		t.Errorf("no cell of %v", want)
	}
	rep, err := runCLI(t, "report", strings.TrimSpace(stdout))
	if err != nil || !strings.Contains(rep, "profile") || !strings.Contains(rep, "set 64KiB at 4 in flight") {
		t.Errorf("report does not show the profile: %v\n%s", err, rep)
	}
}

// A profile that cannot apply is refused before anything runs, naming
// the field and the problem: a baseline store has no threshold, and a
// profile's own errors name its file and rule.
func TestRunProfileRefused(t *testing.T) {
	dir, wl, prof := writeProfile(t)
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"kvbench_profile": 1, "rules": [{"op": "put", "threshold": 1}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--profile", bad}, `target.profile: ` + bad + `: rule 1: op "put"`},
		{[]string{"--profile", filepath.Join(dir, "none.json")}, "target.profile:"},
		{[]string{"--profile", prof, "--kind", "redis", "--server", "127.0.0.1:1"}, "target.profile: redis has no eager threshold"},
	} {
		_, stderr, err := runCLIErr(t, append([]string{"run", wl, "--transport", "tcp", "-o", dir, "--quiet"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error()+stderr, c.want) {
			t.Errorf("%v: %v, stderr %q; want an error with %q", c.args, err, stderr, c.want)
		}
	}
}
