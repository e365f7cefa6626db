package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

// Three ranks of one workload run side by side against one server (as
// three hosts would), each told its rank by flag or by a launcher's
// variable, and merge makes one run of them: every count is the ranks'
// sum, verify found nothing wrong on any, and the ranks block names each.
func TestRanksThenMerge(t *testing.T) {
	srv := keyServer(t, nil)
	out := t.TempDir()
	dirs := make([]string, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for r := range 3 {
		wg.Go(func() {
			var stdout bytes.Buffer
			errs[r] = execute(hangGuard(t), &stdout, "run", "testdata/run-quick.yaml", "--server", srv, "-q", "-o", out,
				"--rank", string(rune('0'+r)), "--ranks", "3")
			dirs[r] = strings.TrimSpace(stdout.String())
		})
	}
	wg.Wait()
	var sum int64
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
		run, err := results.Load(dirs[r])
		if err != nil || run.Rank == nil || run.Rank.Rank != r || run.Verify.Mismatches+run.Verify.Missing+run.Verify.Torn != 0 {
			t.Fatalf("rank %d: %v, %+v", r, err, run)
		}
		if !strings.Contains(dirs[r], "run-quick-rank"+string(rune('0'+r))) {
			t.Errorf("rank %d wrote %s", r, dirs[r])
		}
		for _, c := range run.Cells {
			sum += c.Count
		}
	}
	var stdout bytes.Buffer
	if err := execute(hangGuard(t), &stdout, append([]string{"merge", "-o", t.TempDir()}, dirs...)...); err != nil {
		t.Fatal(err)
	}
	merged, err := results.Load(strings.TrimSpace(stdout.String()))
	if err != nil {
		t.Fatal(err)
	}
	var got int64
	for _, c := range merged.Cells {
		got += c.Count
	}
	if got != sum || sum != 2*1000 || len(merged.Ranks) != 3 || merged.Verify.Checked == 0 {
		t.Errorf("merged %d operations of the ranks' %d (2 sizes x 1000), %d ranks, verify %+v", got, sum, len(merged.Ranks), merged.Verify)
	}
	if err := execute(hangGuard(t), &stdout, "merge", dirs[0], dirs[0]); err == nil || !strings.Contains(err.Error(), "both rank 0") {
		t.Errorf("a rank merged twice: %v", err)
	}
}

func TestRankFromLauncher(t *testing.T) {
	cmd := newRunCmd()
	t.Setenv("OMPI_COMM_WORLD_RANK", "2")
	t.Setenv("OMPI_COMM_WORLD_SIZE", "4")
	if r, n, from, err := rankOf(cmd, 0, 0); err != nil || r != 2 || n != 4 || from != "OMPI_COMM_WORLD_RANK" {
		t.Errorf("Open MPI's variables: %d of %d from %q, %v", r, n, from, err)
	}
	t.Setenv("OMPI_COMM_WORLD_SIZE", "two")
	if _, _, _, err := rankOf(cmd, 0, 0); err == nil || !strings.Contains(err.Error(), `OMPI_COMM_WORLD_SIZE="two"`) {
		t.Errorf("a bad size: %v", err)
	}
	t.Setenv("OMPI_COMM_WORLD_SIZE", "2")
	if _, _, _, err := rankOf(cmd, 0, 0); err == nil || !strings.Contains(err.Error(), "rank 2 of 2") {
		t.Errorf("rank beyond the size: %v", err)
	}
}

func TestRanksNeedAServer(t *testing.T) {
	err := execute(hangGuard(t), &bytes.Buffer{}, "run", "testdata/run-quick.yaml", "-q", "-o", t.TempDir(), "--rank", "1", "--ranks", "2")
	if err == nil || !strings.Contains(err.Error(), "must share one server") {
		t.Errorf("ranks with an embedded server: %v", err)
	}
	err = execute(hangGuard(t), &bytes.Buffer{}, "run", "testdata/run-quick.yaml", "-q", "-o", t.TempDir(), "--ranks", "2")
	if err == nil || !strings.Contains(err.Error(), "without --rank") {
		t.Errorf("--ranks alone: %v", err)
	}
}
