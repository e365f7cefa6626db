package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/results"
)

// mpiKvbench builds kvbench with MPI (make build-mpi) into a temporary
// directory.
func mpiKvbench(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("mpirun"); err != nil {
		t.Fatal("mpirun is missing: install openmpi-bin and libopenmpi-dev (scripts/setup.sh does)")
	}
	bin := filepath.Join(t.TempDir(), "kvbench")
	out, err := exec.Command("go", "build", "-tags", "mpi", "-o", bin, "../../cmd/kvbench").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -tags mpi: %v\n%s", err, out)
	}
	return bin
}

// mpirun runs the job; the arguments after the program's own, separated by
// ":", start further programs (MPMD).
func mpirun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("mpirun", append([]string{"--allow-run-as-root", "--oversubscribe"}, args...)...)
	cmd.Env = append(os.Environ(), "OMPI_MCA_rmaps_base_oversubscribe=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// kvbench under mpirun -np 3 against one server over TCP, verifying:
// one results directory whose cells hold exactly the ranks' operations,
// whose merged histograms equal the ranks' added by another path, with
// nothing wrong found; the same seed gives the same operations; three
// separate runs merged by kvbench merge make the same run; and a rank that
// fails ends the job, named.
func TestMPIJob(t *testing.T) {
	bin := mpiKvbench(t)
	srv := keyServer(t, nil)
	run := func(out string) *results.Run {
		t.Helper()
		log, err := mpirun(t, "-np", "3", bin, "run", "testdata/run-quick.yaml", "--server", srv, "-q", "-o", out)
		if err != nil {
			t.Fatalf("mpirun: %v\n%s", err, log)
		}
		r, err := results.Load(strings.TrimSpace(log))
		if err != nil {
			t.Fatalf("%v\n%s", err, log)
		}
		if left, _ := filepath.Glob(filepath.Join(out, "*-partial-*")); len(left) != 0 {
			t.Errorf("a job that ended well left its ranks' checkpoints: %v", left)
		}
		return r
	}
	job := run(t.TempDir())
	checkMerged(t, job)
	again := run(t.TempDir())
	if a, b := rankCounts(job), rankCounts(again); a != b {
		t.Errorf("the same seed gave different operations:\n%s\n%s", a, b)
	}

	// The same ranks run one by one and merged by hand.
	out, dirs := t.TempDir(), []string{}
	for r := range 3 {
		var stdout bytes.Buffer
		if err := execute(hangGuard(t), &stdout, "run", "testdata/run-quick.yaml", "--server", srv, "-q", "-o", out,
			"--rank", fmt.Sprint(r), "--ranks", "3"); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, strings.TrimSpace(stdout.String()))
	}
	var stdout bytes.Buffer
	if err := execute(hangGuard(t), &stdout, append([]string{"merge", "-o", t.TempDir()}, dirs...)...); err != nil {
		t.Fatal(err)
	}
	byHand, err := results.Load(strings.TrimSpace(stdout.String()))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := rankCounts(job), rankCounts(byHand); a != b {
		t.Errorf("merged separate runs differ from the MPI job:\n%s\n%s", b, a)
	}

	// Rank 2 cannot reach the server: the job fails naming it, and rank 0
	// keeps what the others measured (nothing: they stop at their first
	// meeting) in a results directory that says why.
	out = t.TempDir()
	log, err := mpirun(t, "-np", "2", bin, "run", "testdata/run-quick.yaml", "--server", srv, "-q", "-o", out,
		":", "-np", "1", bin, "run", "testdata/run-quick.yaml", "--server", "127.0.0.1:1", "-q", "-o", out)
	if err == nil || !regexp.MustCompile(`rank 2 of 3 on \S+ failed: .*127\.0\.0\.1:1`).MatchString(log) {
		t.Errorf("a failing rank: %v\n%s", err, log)
	}
	r, err := results.Load(filepath.Join(out, results.LatestLink))
	if err != nil {
		t.Fatalf("the failed job's results: %v", err)
	}
	if msg, failed := results.EndFailure(r.EndReason); !failed || !strings.HasPrefix(msg, "rank 2: ") {
		t.Errorf("the failed job's end reason %q, want rank 2's failure", r.EndReason)
	}
}

// An interrupted MPI job stops every rank at the same point and keeps
// what they measured until then.
func TestMPIInterrupt(t *testing.T) {
	bin := mpiKvbench(t)
	srv := keyServer(t, nil)
	out := t.TempDir()
	cmd := exec.Command("mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "2", bin, "run", "testdata/run-quick.yaml",
		"--server", srv, "-o", out, "--duration", "1h")
	var once sync.Once
	// Rank 0's progress, relayed by mpirun, once it shows measured work.
	w := &cancelOn{when: regexp.MustCompile(`measure +[1-9][0-9]* ops/s`), cancel: func() {
		once.Do(func() { cmd.Process.Signal(os.Interrupt) })
	}}
	cmd.Stdout, cmd.Stderr = w, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("an interrupted job exited 0")
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("SIGINT did not stop the job")
	}
	r, err := results.Load(filepath.Join(out, results.LatestLink))
	if err != nil {
		t.Fatal(err)
	}
	var measured int64
	for _, c := range r.Cells {
		measured += c.Count
	}
	if r.EndReason != results.EndInterrupted || measured == 0 || len(r.Ranks) != 2 {
		t.Errorf("end %q, %d operations, %d ranks: want the interrupted job's partial results", r.EndReason, measured, len(r.Ranks))
	}
}

// checkMerged: each merged cell holds the ranks' operations and its
// histogram is theirs, rebuilt bucket by bucket rather than merged.
func checkMerged(t *testing.T, job *results.Run) {
	t.Helper()
	if len(job.Ranks) != 3 || job.Verify.Checked == 0 || job.Verify.Mismatches+job.Verify.Missing+job.Verify.Torn != 0 {
		t.Fatalf("ranks %d, verify %+v", len(job.Ranks), job.Verify)
	}
	var total int64
	for _, c := range job.Cells {
		var sum int64
		rebuilt := results.NewHistogram()
		for _, r := range job.Ranks {
			for _, rc := range r.Cells {
				if rc.Name != c.Name() {
					continue
				}
				sum += rc.Count
				h, err := results.DecodeHistogram(rc.Histogram)
				if err != nil {
					t.Fatal(err)
				}
				for _, b := range h.Distribution() {
					if b.Count > 0 {
						rebuilt.RecordValues(b.From, b.Count)
					}
				}
			}
		}
		if c.Count != sum {
			t.Errorf("%s: %d operations, the ranks did %d", c.Name(), c.Count, sum)
		}
		h, err := results.CellHistogram(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []float64{50, 90, 99, 99.9} {
			if a, b := h.ValueAtQuantile(q), rebuilt.ValueAtQuantile(q); a != b {
				t.Errorf("%s p%g: merged %d, the ranks' values %d", c.Name(), q, a, b)
			}
		}
		total += c.Count
	}
	if total != 2*1000 {
		t.Errorf("%d measured operations, want 2 sizes x 1000", total)
	}
}

// rankCounts is every rank's count per cell, printed.
func rankCounts(r *results.Run) string {
	var b strings.Builder
	for _, rk := range r.Ranks {
		for _, c := range rk.Cells {
			fmt.Fprintf(&b, "rank %d %s %d\n", rk.Rank, c.Name, c.Count)
		}
	}
	return b.String()
}

// A rank killed in the middle of a job takes the job down, but every
// rank's cells measured so far stay on its disk, and kvbench merge makes
// one run of them.
func TestMPIRankDies(t *testing.T) {
	bin := mpiKvbench(t)
	srv := keyServer(t, nil)
	out := t.TempDir()
	// Rank 2 runs kvbench and kills it once its first checkpoint exists,
	// in the second of the two cells.
	die := filepath.Join(t.TempDir(), "die.sh")
	script := "#!/bin/sh\n\"$@\" &\np=$!\nwhile ! ls " + out + "/*rank2-partial*/results.json >/dev/null 2>&1; do sleep 0.1; done\nkill -9 $p\nwait $p\n"
	if err := os.WriteFile(die, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "testdata/run-quick.yaml", "--server", srv, "-q", "-o", out, "--warmup", "0", "--duration", "2s"}
	log, err := mpirun(t, append(append(append([]string{"-np", "2", bin}, args...), ":", "-np", "1", die, bin), args...)...)
	if err == nil {
		t.Fatalf("a job with a killed rank succeeded:\n%s", log)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "*-partial-*"))
	if len(parts) != 3 {
		t.Fatalf("checkpoints %v, want one per rank\n%s", parts, log)
	}
	var stdout bytes.Buffer
	if err := execute(hangGuard(t), &stdout, append([]string{"merge", "-o", t.TempDir()}, parts...)...); err != nil {
		t.Fatal(err)
	}
	r, err := results.Load(strings.TrimSpace(stdout.String()))
	if err != nil || len(r.Ranks) != 3 || len(r.Cells) == 0 || !strings.Contains(r.EndReason, results.EndPartial) {
		t.Fatalf("merged checkpoints: %v, %d ranks, %d cells, end %q", err, len(r.Ranks), len(r.Cells), r.EndReason)
	}
}

// Every rank of a job checks the server's limits before the first
// meeting: against a server whose max eager is below a threshold of the
// workload, the job fails naming the threshold's cells, and nothing is
// measured or written.
func TestMPILimits(t *testing.T) {
	bin := mpiKvbench(t)
	srv := keyServer(t, nil) // max eager 64KiB
	out := t.TempDir()
	log, err := mpirun(t, "-np", "2", bin, "run", "../../workloads/connections-sweep.yaml", "--server", srv, "-q", "-o", out,
		"--warmup", "0", "--duration", "200ms")
	if err == nil || !regexp.MustCompile(`rank \d of 2 on \S+ failed, ending the job: rdmakv \S+ cannot run every cell`).MatchString(log) ||
		!strings.Contains(log, "threshold 2MiB is above the server's max eager 64KiB") {
		t.Fatalf("a job the server cannot run: %v\n%s", err, log)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("%d entries in the results directory, want none\n%s", len(ents), log)
	}
}
