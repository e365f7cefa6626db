package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/results/resultstest"
)

// arm is a synthetic one-cell run: samples spread over intervals seconds
// from offset past a common start, each latency scaled.
func armRun(t *testing.T, name string, offset, intervals, samples int, scale float64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	_, err := resultstest.Build(dir, resultstest.Spec{
		Ops: []string{"get"}, Sizes: []int{64}, Thresholds: []int{4096},
		Samples: samples, Intervals: intervals, Seed: uint64(offset + 1), Model: resultstest.Default,
		Scale: map[string]float64{"get": scale},
		Start: time.Date(2026, 11, 28, 4, 0, offset, 0, time.UTC),
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// Runs are compared over the seconds all of them measured: a run that
// started later and ran as fast per second passes whatever its total, one
// half as fast or three times as slow in p99 fails by name, and runs that
// hardly overlapped are refused.
func TestFlowcheck(t *testing.T) {
	ref := armRun(t, "ref", 0, 10, 10000, 1)
	late := armRun(t, "late", 4, 10, 10000, 1.1)
	slow := armRun(t, "slow", 2, 10, 5000, 1)
	tail := armRun(t, "tail", 2, 10, 10000, 3)
	apart := armRun(t, "apart", 8, 10, 10000, 1)
	var out bytes.Buffer
	if err := run([]string{ref + "," + late, ref + "," + late}, &out); err != nil {
		t.Fatalf("a run as fast per second, started 4 s later: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "late: 1000 ops/s (1.00x), p99") {
		t.Errorf("ratios over the common window:\n%s", out.String())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{ref + "," + slow + "," + late}, "slow: ops/s below 0.80x"},
		{[]string{ref + "," + tail}, "tail: ops/s below 0.80x or p99 above 2.00x"},
		{[]string{ref + "," + apart}, "measured together for 2s, less than 3s"},
		{[]string{ref + "," + late, ref}, "a round of 1 runs after one of 2"},
	} {
		out.Reset()
		err := run(tc.args, &out)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
