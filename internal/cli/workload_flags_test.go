package cli

import (
	"reflect"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/workload"
)

// Only the flags the user gave override, each with its value as the
// workload takes it: a flag set to its zero overrides too.
func TestOverridesAreTheFlagsGiven(t *testing.T) {
	var f runFlags
	cmd := &cobra.Command{Use: "run"}
	f.registerTarget(cmd, nil)
	f.registerLoad(cmd)
	err := cmd.ParseFlags([]string{"--seed", "7", "--rate", "1500", "--verify=false", "--warmup", "0", "--transport", "verbs", "--depth", "3"})
	if err != nil {
		t.Fatal(err)
	}
	want := workload.Overrides{"seed": uint64(7), "rate": 1500.0, "verify": false, "warmup": time.Duration(0), "transport": "verbs", "depth": 3}
	if got := f.overrides(cmd); !reflect.DeepEqual(got, want) {
		t.Errorf("overrides %v, want %v", got, want)
	}
}

// tune's --connections, --depth and --rate are lists; their first values
// override the workload, and its other overrides are run's.
func TestTuneOverridesByFirstOfLists(t *testing.T) {
	f := &tuneFlags{}
	cmd := &cobra.Command{Use: "tune"}
	f.addFlags(cmd)
	if err := cmd.ParseFlags([]string{"--connections", "4,16", "--rate", "100,200", "--duration", "2s"}); err != nil {
		t.Fatal(err)
	}
	want := workload.Overrides{"connections": 4, "rate": 100.0, "duration": 2 * time.Second}
	if got := f.overrides(cmd); !reflect.DeepEqual(got, want) {
		t.Errorf("overrides %v, want %v", got, want)
	}
	for _, name := range []string{"verify", "order"} {
		if cmd.Flags().Lookup(name) != nil {
			t.Errorf("tune has --%s, which only run takes", name)
		}
	}
}
