package resultstest

import (
	_ "embed"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

// Two real runs of one mixed workload (values.distribution: a weighted
// mix of 64 B to 1 MiB), thresholds 1 KiB and 64 KiB, gets and sets,
// verified, over tcp to an embedded server: every cell with its size
// classes, sizes, CPU time and receive memory. B ran after A on a busier
// host.
var (
	//go:embed mixed-a.json
	mixedA []byte
	//go:embed mixed-b.json
	mixedB []byte
)

// MixedA and MixedB decode the runs anew for each caller.
func MixedA(t testing.TB) *results.Run { return decode(t, mixedA) }
func MixedB(t testing.TB) *results.Run { return decode(t, mixedB) }

func decode(t testing.TB, b []byte) *results.Run {
	t.Helper()
	run, err := results.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return run
}
