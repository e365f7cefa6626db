package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

// A two-threshold sweep against the embedded server runs its cells in the
// workload's order, interleaved unless --order says thresholds, records
// the order in the effective workload and lists the cells as they ran.
func TestRunOrder(t *testing.T) {
	quick, err := os.ReadFile("testdata/run-quick.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "run-order.yaml")
	yaml := strings.Replace(string(quick), "thresholds: [4KiB]", "thresholds: [1KiB, 16KiB]", 1)
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		flags []string
		order string
		cells [][2]int // threshold, value size
	}{
		{nil, "interleaved", [][2]int{{1024, 64}, {16384, 64}, {1024, 8192}, {16384, 8192}}},
		{[]string{"--order", "thresholds"}, "thresholds", [][2]int{{1024, 64}, {1024, 8192}, {16384, 64}, {16384, 8192}}},
	} {
		var stdout bytes.Buffer
		args := append([]string{"run", file, "-o", t.TempDir(), "-q", "--warmup", "0"}, c.flags...)
		if err := execute(hangGuard(t), &stdout, args...); err != nil {
			t.Fatal(err)
		}
		r, err := results.Load(strings.TrimSpace(stdout.String()))
		if err != nil {
			t.Fatal(err)
		}
		var ran [][2]int
		for _, cell := range r.Cells {
			if k := [2]int{cell.Threshold, cell.ValueSize}; len(ran) == 0 || ran[len(ran)-1] != k {
				ran = append(ran, k)
			}
		}
		if order := r.Workload.(map[string]any)["order"]; order != c.order || !slices.Equal(ran, c.cells) {
			t.Errorf("%v: order %v, cells ran %v; want %s, %v", c.flags, order, ran, c.order, c.cells)
		}
		if r.Verify.Checked == 0 || r.Verify.Mismatches+r.Verify.Missing+r.Verify.Torn != 0 {
			t.Errorf("%v: verify %+v", c.flags, r.Verify)
		}
	}
}
