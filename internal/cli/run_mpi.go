package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/merge"
	"github.com/kvbench/kvbench/internal/mpi"
	"github.com/kvbench/kvbench/internal/results"
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

// abortRank ends the whole job when one rank fails, naming it: the other
// ranks would otherwise wait for it at the next barrier.
func abortRank(stderr io.Writer, w *mpi.World, err error) {
	host, _ := os.Hostname()
	fmt.Fprintf(stderr, "kvbench: rank %d of %d on %s failed, ending the job: %v\n", w.Rank(), w.Size(), host, err)
	w.Abort(1)
}

// rankPart is what a rank sends rank 0 at the end: its results and its
// cells' interval logs (HdrHistogram log format), by cell name.
type rankPart struct {
	Run   *results.Run      `json:"run"`
	Hlogs map[string][]byte `json:"hlogs"`
}

// gatherRanks sends this rank's results to rank 0, which merges every
// rank's into the job's; the other ranks get nil.
func gatherRanks(w *mpi.World, run *results.Run, cells []results.CellLog) (*results.Run, []results.CellLog, error) {
	p := rankPart{Run: run, Hlogs: map[string][]byte{}}
	run.Cells = run.Cells[:0]
	for _, cl := range cells {
		b, err := results.EncodeHlog("", cl.Start, cl.Intervals)
		if err != nil {
			return nil, nil, err
		}
		p.Hlogs[cl.Cell.Name()] = b
		run.Cells = append(run.Cells, cl.Cell)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, nil, err
	}
	all, err := w.Gather(b)
	if err != nil || w.Rank() != 0 {
		return nil, nil, err
	}
	parts := make([]merge.Part, len(all))
	for i, b := range all {
		var rp rankPart
		if err := json.Unmarshal(b, &rp); err != nil {
			return nil, nil, fmt.Errorf("rank %d's results: %w", i, err)
		}
		parts[i] = merge.Part{Run: rp.Run, Dir: fmt.Sprintf("rank %d", i), Hlogs: rp.Hlogs}
	}
	merged, logs, warnings, err := merge.Runs(parts)
	for _, msg := range warnings {
		fmt.Fprintf(os.Stderr, "kvbench: warning: %s\n", msg)
	}
	return merged, logs, err
}
