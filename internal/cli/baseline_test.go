package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/store/memcached"
	"github.com/kvbench/kvbench/internal/store/redis"
	"github.com/kvbench/kvbench/internal/testutil"
	"github.com/kvbench/kvbench/internal/workload"
)

// Every shipped workload runs against Redis and memcached as it is, its
// thresholds ignored with one note: cells named after the store, every
// operation a success or a miss, verification clean where it is on.
func TestShippedWorkloadsAgainstBaselines(t *testing.T) {
	files, err := filepath.Glob("../../workloads/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("shipped workloads: %v %v", files, err)
	}
	servers := map[string]string{
		redis.Kind: testutil.Redis(t),
		// The sweeps' 1 MiB values need items above the default 1 MiB.
		memcached.Kind: testutil.Memcached(t, "-I", "2m", "-m", "1024"),
	}
	for _, kind := range []string{redis.Kind, memcached.Kind} {
		for _, f := range files {
			t.Run(kind+"/"+filepath.Base(f), func(t *testing.T) {
				w, err := workload.LoadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				out := t.TempDir()
				args := []string{"run", f, "--kind", kind, "--server", servers[kind], "--warmup", "0", "--duration", "50ms", "-o", out, "--quiet"}
				if w.Load.Ramp != nil {
					// A ramp is its own measure phase: a fixed rate
					// stands in for it, so that --duration applies.
					args = append(args, "--rate", "1000")
				}
				stdout, stderr, err := runCLIErr(t, args...)
				if err != nil {
					t.Fatalf("%v\n%s", err, stderr)
				}
				// Every shipped workload lists its thresholds.
				if strings.Count(stderr, "do not apply") != 1 || !strings.Contains(stderr, w.Thresholds[0].String()) {
					t.Errorf("want one note of the ignored thresholds %v: %q", w.Thresholds, stderr)
				}
				r, err := results.Load(strings.TrimSpace(stdout))
				if err != nil {
					t.Fatal(err)
				}
				checkBaselineRun(t, r, kind, len(cellSizes(w)))
			})
		}
	}
}

// cellSizes are the value sizes w's cells are named by: its sizes, or a
// distribution's mean.
func cellSizes(w *workload.Workload) map[int64]bool {
	out := map[int64]bool{}
	for _, c := range w.Cells() {
		out[c.ValueSize] = true
	}
	return out
}

func checkBaselineRun(t *testing.T, r *results.Run, kind string, sizes int) {
	t.Helper()
	if r.TargetKind() != kind || r.Target.ServerVersion == "" || r.EndReason != results.EndCompleted {
		t.Errorf("target %+v, end %q", r.Target, r.EndReason)
	}
	if r.Verify.Mismatches+r.Verify.Missing+r.Verify.Torn != 0 {
		t.Errorf("verify %+v", r.Verify)
	}
	seen := map[int]bool{}
	for _, c := range r.Cells {
		seen[c.ValueSize] = true
		if c.Store != kind || c.Protocol != "eager" || c.Threshold != 0 || c.Failures() != 0 || c.Count == 0 {
			t.Errorf("cell %s: store %q protocol %q threshold %d count %d errors %v", c.Name(), c.Store, c.Protocol, c.Threshold, c.Count, c.Errors)
		}
	}
	if len(seen) != sizes {
		t.Errorf("cells of %d value sizes, want %d", len(seen), sizes)
	}
}
