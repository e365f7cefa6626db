package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/merge"
	"github.com/kvbench/kvbench/internal/mpi"
	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/workload"
)

// joinMPI joins the MPI job this process was launched in, if kvbench is
// built with MPI (make build-mpi) and an MPI launcher started it; else
// nil, and a launcher's variables only place the rank (rankOf). --rank
// and --ranks do not go with MPI, which says both itself.
func joinMPI(cmd *cobra.Command) (*mpi.World, error) {
	if !mpi.Launched() {
		return nil, nil
	}
	w, err := mpi.Join()
	if errors.Is(err, mpi.ErrNotBuilt) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if cmd.Flags().Changed("rank") || cmd.Flags().Changed("ranks") {
		w.Abort(1)
		return nil, errors.New("--rank and --ranks do not go with an MPI launch: MPI gives every process its rank")
	}
	return w, nil
}

// abortRank ends the whole job when one rank fails before the ranks
// first meet, naming it: the others would wait for it there. Alone, it
// does nothing.
func abortRank(stderr io.Writer, w *mpi.World, err error) {
	if w == nil {
		return
	}
	host, _ := os.Hostname()
	fmt.Fprintf(stderr, "kvbench: rank %d of %d on %s failed, ending the job: %v\n", w.Rank(), w.Size(), host, err)
	w.Abort(1)
}

// checkpointRank saves this rank's cells after each one (merge.Checkpoint).
func checkpointRank(f *runFlags, world *mpi.World, w *workload.Workload, h *bench.Harness) (*merge.Checkpoint, func(*bench.Report) error) {
	ck := merge.NewCheckpoint(f.out, w.Name, world.Rank(), report.WriteSummary)
	return ck, func(rep *bench.Report) error {
		run, cells, err := recordRank(world, w, h, rep, nil)
		if err != nil {
			return err
		}
		return ck.Save(run, cells)
	}
}

// recordRank is this rank's run so far, placed in the job.
func recordRank(world *mpi.World, w *workload.Workload, h *bench.Harness, rep *bench.Report, runErr error) (*results.Run, []results.CellLog, error) {
	ver, rev := buildVersion()
	run, cells, err := h.Record(w, w.Seed, rep, runErr, ver, rev)
	if err != nil {
		return nil, nil, err
	}
	run.Rank = &results.Rank{Rank: world.Rank(), Ranks: world.Size(), From: "MPI"}
	return run, cells, nil
}

// finishMPI ends a rank's part of an MPI job: every rank, failed or not,
// sends rank 0 what it measured, and rank 0 writes the job's results
// (partial when a rank failed or the job was interrupted) and reports
// which ranks failed. The other ranks exit 0 so that the launcher lets
// rank 0 finish.
func finishMPI(cmd *cobra.Command, f *runFlags, world *mpi.World, w *workload.Workload, h *bench.Harness, rep *bench.Report, runErr error, ck *merge.Checkpoint) error {
	stderr := cmd.ErrOrStderr()
	if rep == nil {
		rep = &bench.Report{}
	}
	run, cells, err := recordRank(world, w, h, rep, runErr)
	if err != nil {
		abortRank(stderr, world, err)
		return err
	}
	job, err := gatherRanks(world, run, cells)
	if err == nil && world.Rank() != 0 {
		ck.Remove() // rank 0 has this rank's results
	}
	if err != nil || world.Rank() != 0 {
		return err
	}
	for _, msg := range job.Warnings {
		fmt.Fprintf(stderr, "kvbench: warning: %s\n", msg)
	}
	dir, err := saveRun(cmd, f, w.Name, job.Run, job.Logs)
	if err != nil {
		return err
	}
	ck.Remove()
	if len(job.Failed) > 0 {
		return fmt.Errorf("%s (partial results in %s)", strings.Join(job.Failed, "; "), dir)
	}
	v := job.Run.Verify
	jobRep := &bench.Report{Interrupted: rep.Interrupted || job.Run.EndReason == results.EndInterrupted,
		Verify: bench.VerifyCounts{Checked: v.Checked, Mismatches: v.Mismatches, Missing: v.Missing, Torn: v.Torn}}
	return outcome(jobRep, nil, dir)
}

// gatherRanks sends this rank's results to rank 0, which merges every
// rank's into the job's; the other ranks get nil.
func gatherRanks(world *mpi.World, run *results.Run, cells []results.CellLog) (*merge.Job, error) {
	b, err := merge.EncodeRank(run, cells)
	if err != nil {
		return nil, err
	}
	all, err := world.Gather(b)
	if err != nil || world.Rank() != 0 {
		return nil, err
	}
	return merge.Gathered(all)
}
