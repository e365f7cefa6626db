package merge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
)

// cellLogs are the part's cells with their interval logs, as a rank
// records them.
func cellLogs(t *testing.T, p Part) []results.CellLog {
	t.Helper()
	var out []results.CellLog
	for _, c := range p.Run.Cells {
		ivs, err := results.CellIntervals(p.Dir, c)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, results.CellLog{Cell: c, Start: time.UnixMilli(ivs[0].StartTimeMs()), Intervals: ivs})
	}
	return out
}

// What the ranks send over MPI merges as their results directories do,
// and rank 0 learns which ranks failed and why.
func TestGatheredMergesWhatRanksSent(t *testing.T) {
	parts := ranks(t, 3, func(i int, r *results.Run) {
		if i == 1 {
			r.EndReason = results.EndError("dial 127.0.0.1:1: refused")
		}
	})
	var msgs [][]byte
	for _, p := range parts {
		// A rank's recorded run carries its cells in the logs alone.
		run := *p.Run
		run.Cells = nil
		b, err := EncodeRank(&run, cellLogs(t, p))
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, b)
	}
	job, err := Gathered(msgs)
	if err != nil {
		t.Fatal(err)
	}
	want, wantLogs, _, err := Runs(parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(job.Logs) != len(wantLogs) || len(job.Run.Ranks) != 3 || job.Run.EndReason != want.EndReason {
		t.Fatalf("gathered %d cells of %d ranks ending %q; from disk %d cells ending %q",
			len(job.Logs), len(job.Run.Ranks), job.Run.EndReason, len(wantLogs), want.EndReason)
	}
	for i, cl := range job.Logs {
		if c, w := cl.Cell, wantLogs[i].Cell; c.Name() != w.Name() || c.Count != w.Count || c.Histogram != w.Histogram || len(cl.Intervals) != len(wantLogs[i].Intervals) {
			t.Errorf("cell %s: gathered count %d, %d intervals; from disk %s count %d, %d intervals",
				c.Name(), c.Count, len(cl.Intervals), w.Name(), w.Count, len(wantLogs[i].Intervals))
		}
	}
	if len(job.Failed) != 1 || job.Failed[0] != "rank 1 of 3 on clientb failed: dial 127.0.0.1:1: refused" {
		t.Errorf("failed ranks %q", job.Failed)
	}
}

func TestGatheredRefusesGarbage(t *testing.T) {
	if _, err := Gathered([][]byte{[]byte("{")}); err == nil || !strings.Contains(err.Error(), "rank 0's results") {
		t.Errorf("got %v, want rank 0's results refused", err)
	}
}

// A checkpoint is one directory per rank, rewritten at every save,
// marked partial, that kvbench merge reads as a rank; it goes once
// rank 0 has the results.
func TestCheckpoint(t *testing.T) {
	p := ranks(t, 2, nil)[1]
	logs := cellLogs(t, p)
	parent := t.TempDir()
	ck := NewCheckpoint(parent, "quick", 1, report.WriteSummary)
	for n := 1; n <= len(logs); n++ {
		if err := ck.Save(p.Run, logs[:n]); err != nil {
			t.Fatal(err)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(parent, "quick-rank1-partial*"))
	if len(dirs) != 1 {
		t.Fatalf("checkpoint directories %v, want one", dirs)
	}
	back, err := results.Load(dirs[0])
	if err != nil || back.EndReason != results.EndPartial || len(back.Cells) != len(logs) || back.Rank.Rank != 1 {
		t.Fatalf("read back: %v, %+v", err, back)
	}
	ck.Remove()
	if _, err := os.Stat(dirs[0]); !os.IsNotExist(err) {
		t.Errorf("checkpoint still there after Remove: %v", err)
	}
	var none *Checkpoint
	none.Remove()
	NewCheckpoint(parent, "quick", 0, report.WriteSummary).Remove()
}
