package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/store"
)

// kvbench links rdmakv and the baselines (drivers.go), each registered
// once, and --kind's help, its completion and the workload's validation
// take the kinds from the registry.
func TestRegisteredKinds(t *testing.T) {
	want := []string{"rdmakv", "memcached", "redis"}
	if got := store.Kinds(); !slices.Equal(got, want) {
		t.Fatalf("registered kinds %v, want %v", got, want)
	}
	list := strings.Join(want, ", ")
	help, err := runCLI(t, "run", "--help")
	if err != nil || !strings.Contains(help, "store to drive: "+list+" ") {
		t.Errorf("run --help (%v) does not list %s:\n%s", err, list, help)
	}
	comp, err := runCLI(t, "__complete", "run", "--kind", "")
	if got := strings.Fields(comp); err != nil || len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("completing --kind (%v): %q", err, comp)
	}
	_, err = runCLI(t, "run", "testdata/run-quick.yaml", "--kind", "mongodb", "-o", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `"mongodb" is not a kind of store (want one of: `+list+")") {
		t.Errorf("--kind mongodb: %v", err)
	}
}
