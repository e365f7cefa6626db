package merge

import (
	"encoding/json"
	"fmt"

	"github.com/kvbench/kvbench/internal/results"
)

// rankPart is what a rank of an MPI job sends rank 0 at the end: its
// results and its cells' interval logs (HdrHistogram log format), by cell
// name, so that rank 0 needs no other rank's disk.
type rankPart struct {
	Run   *results.Run      `json:"run"`
	Hlogs map[string][]byte `json:"hlogs"`
}

// EncodeRank is the message a rank of an MPI job sends rank 0 at the
// end: run, with cells' interval logs carried inside it. Gathered reads
// it back.
func EncodeRank(run *results.Run, cells []results.CellLog) ([]byte, error) {
	r := *run
	p := rankPart{Run: &r, Hlogs: map[string][]byte{}}
	r.Cells = make([]results.Cell, 0, len(cells))
	for _, cl := range cells {
		b, err := results.EncodeHlog("", cl.Start, cl.Intervals)
		if err != nil {
			return nil, err
		}
		p.Hlogs[cl.Cell.Name()] = b
		r.Cells = append(r.Cells, cl.Cell)
	}
	return json.Marshal(p)
}

// Job is an MPI job's run as rank 0 makes it of what the ranks sent:
// the merged run and its cells' interval logs, ready for
// results.WriteRun.
type Job struct {
	Run  *results.Run
	Logs []results.CellLog
	// Failed names each rank that failed and why; the run then holds the
	// job's partial results.
	Failed []string
	// Warnings are Runs' warnings about the merge.
	Warnings []string
}

// Gathered merges the messages of every rank (EncodeRank), in rank
// order, into the job's run.
func Gathered(msgs [][]byte) (*Job, error) {
	parts := make([]Part, len(msgs))
	job := &Job{}
	for i, b := range msgs {
		var rp rankPart
		if err := json.Unmarshal(b, &rp); err != nil {
			return nil, fmt.Errorf("rank %d's results: %w", i, err)
		}
		if msg, failed := results.EndFailure(rp.Run.EndReason); failed {
			job.Failed = append(job.Failed, fmt.Sprintf("rank %d of %d on %s failed: %s", i, len(msgs), rp.Run.Host.Hostname, msg))
		}
		parts[i] = Part{Run: rp.Run, Dir: fmt.Sprintf("rank %d", i), Hlogs: rp.Hlogs}
	}
	var err error
	job.Run, job.Logs, job.Warnings, err = Runs(parts)
	if err != nil {
		return nil, err
	}
	return job, nil
}
