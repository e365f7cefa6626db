package cli

import (
	"encoding/json"
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

// finishMPI ends a rank's part of an MPI job: every rank, failed or not,
// sends rank 0 what it measured, and rank 0 writes the job's results
// (partial when a rank failed or the job was interrupted) and reports
// which ranks failed. The other ranks exit 0 so that the launcher lets
// rank 0 finish.
func finishMPI(cmd *cobra.Command, f *runFlags, world *mpi.World, w *workload.Workload, h *bench.Harness, rep *bench.Report, runErr error, ck *checkpoint) error {
	stderr := cmd.ErrOrStderr()
	if rep == nil {
		rep = &bench.Report{}
	}
	ver, rev := buildVersion()
	run, cells, err := h.Record(w, w.Seed, rep, runErr, ver, rev)
	if err != nil {
		abortRank(stderr, world, err)
		return err
	}
	run.Rank = &results.Rank{Rank: world.Rank(), Ranks: world.Size(), From: "MPI"}
	merged, logs, failed, err := gatherRanks(world, run, cells, stderr)
	if err == nil && world.Rank() != 0 {
		ck.remove() // rank 0 has this rank's results
	}
	if err != nil || world.Rank() != 0 {
		return err
	}
	dir, err := saveRun(cmd, f, w.Name, merged, logs)
	if err != nil {
		return err
	}
	ck.remove()
	if len(failed) > 0 {
		return fmt.Errorf("%s (partial results in %s)", strings.Join(failed, "; "), dir)
	}
	v := merged.Verify
	jobRep := &bench.Report{Interrupted: rep.Interrupted || merged.EndReason == results.EndInterrupted,
		Verify: bench.VerifyCounts{Checked: v.Checked, Mismatches: v.Mismatches, Missing: v.Missing, Torn: v.Torn}}
	return outcome(jobRep, nil, dir)
}

// rankPart is what a rank sends rank 0 at the end: its results and its
// cells' interval logs (HdrHistogram log format), by cell name.
type rankPart struct {
	Run   *results.Run      `json:"run"`
	Hlogs map[string][]byte `json:"hlogs"`
}

// gatherRanks sends this rank's results to rank 0, which merges every
// rank's into the job's and lists the ranks that failed; the other ranks
// get nils.
func gatherRanks(w *mpi.World, run *results.Run, cells []results.CellLog, stderr io.Writer) (*results.Run, []results.CellLog, []string, error) {
	p := rankPart{Run: run, Hlogs: map[string][]byte{}}
	run.Cells = run.Cells[:0]
	for _, cl := range cells {
		b, err := results.EncodeHlog("", cl.Start, cl.Intervals)
		if err != nil {
			return nil, nil, nil, err
		}
		p.Hlogs[cl.Cell.Name()] = b
		run.Cells = append(run.Cells, cl.Cell)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, nil, nil, err
	}
	all, err := w.Gather(b)
	if err != nil || w.Rank() != 0 {
		return nil, nil, nil, err
	}
	parts := make([]merge.Part, len(all))
	var failed []string
	for i, b := range all {
		var rp rankPart
		if err := json.Unmarshal(b, &rp); err != nil {
			return nil, nil, nil, fmt.Errorf("rank %d's results: %w", i, err)
		}
		if msg, ok := results.EndFailure(rp.Run.EndReason); ok {
			failed = append(failed, fmt.Sprintf("rank %d of %d on %s failed: %s", i, len(all), rp.Run.Host.Hostname, msg))
		}
		parts[i] = merge.Part{Run: rp.Run, Dir: fmt.Sprintf("rank %d", i), Hlogs: rp.Hlogs}
	}
	merged, logs, warnings, err := merge.Runs(parts)
	for _, msg := range warnings {
		fmt.Fprintf(stderr, "kvbench: warning: %s\n", msg)
	}
	return merged, logs, failed, err
}

// checkpoint keeps a rank's results on its own disk after every cell, so
// that a job that dies before rank 0 gathers them (a rank killed, a host
// lost) leaves each surviving rank's cells for kvbench merge. A job that
// ends normally removes them.
type checkpoint struct {
	out, name string
	w         *workload.Workload
	h         *bench.Harness
	world     *mpi.World
	dir       string
}

func (c *checkpoint) save(rep *bench.Report) error {
	ver, rev := buildVersion()
	run, cells, err := c.h.Record(c.w, c.w.Seed, rep, nil, ver, rev)
	if err != nil {
		return err
	}
	run.EndReason = results.EndPartial
	run.Rank = &results.Rank{Rank: c.world.Rank(), Ranks: c.world.Size(), From: "MPI"}
	if c.dir == "" {
		if c.dir, err = results.CreateRunDir(c.out, c.name, rep.Start); err != nil {
			return err
		}
	}
	return results.RewriteRun(c.dir, run, cells, report.WriteSummary)
}

// remove deletes the checkpoint once rank 0 holds its results.
func (c *checkpoint) remove() {
	if c != nil && c.dir != "" {
		os.RemoveAll(c.dir)
	}
}
