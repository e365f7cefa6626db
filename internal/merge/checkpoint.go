package merge

import (
	"fmt"
	"os"

	"github.com/kvbench/kvbench/internal/results"
)

// Checkpoint keeps a rank's results on its own disk after every cell, so
// that a job that dies before rank 0 gathers them (a rank killed, a host
// lost) leaves each surviving rank's cells for kvbench merge. A job that
// ends normally removes them.
type Checkpoint struct {
	parent, name string
	summary      results.SummaryFunc
	dir          string
}

// NewCheckpoint is rank's checkpoint of a run of workload, to be made
// under parent at its first Save, its summary.txt rendered by summary.
func NewCheckpoint(parent, workload string, rank int, summary results.SummaryFunc) *Checkpoint {
	return &Checkpoint{parent: parent, name: fmt.Sprintf("%s-rank%d-partial", workload, rank), summary: summary}
}

// Save writes run and its cells so far over the checkpoint, marked
// results.EndPartial: read back, the cells are all that is left of the
// rank. run.Rank must place it in the job, for kvbench merge.
func (c *Checkpoint) Save(run *results.Run, cells []results.CellLog) error {
	run.EndReason = results.EndPartial
	if c.dir == "" {
		dir, err := results.CreateRunDir(c.parent, c.name, run.Start)
		if err != nil {
			return err
		}
		c.dir = dir
	}
	return results.RewriteRun(c.dir, run, cells, c.summary)
}

// Remove deletes the checkpoint once rank 0 holds its results; a
// checkpoint never saved, or none, leaves nothing to delete.
func (c *Checkpoint) Remove() {
	if c != nil && c.dir != "" {
		os.RemoveAll(c.dir)
	}
}
