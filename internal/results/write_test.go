package results

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// WriteRun leaves a complete run directory: every cell's interval log,
// results.json naming them, summary.txt, and latest pointing at it.
func TestWriteRun(t *testing.T) {
	parent := t.TempDir()
	run := sampleRun(t, "")
	c := run.Cells[0]
	h := NewHistogram()
	h.RecordValue(1234)
	h.SetStartTimeMs(run.Start.UnixMilli())
	h.SetEndTimeMs(run.Start.UnixMilli() + 1000)
	put := c
	put.Op, put.Hlog = "set", ""
	put.Hlog = HlogName(put)
	run.Cells = nil
	dir, err := WriteRun(parent, "my run", run, []CellLog{{Cell: c, Start: run.Start, Intervals: []*hdrhistogram.Histogram{h}}, {Cell: put, Start: run.Start, Intervals: []*hdrhistogram.Histogram{h}}})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(dir) != DirName("my run", run.Start) {
		t.Errorf("run directory %s", dir)
	}
	got, err := Load(filepath.Join(parent, LatestLink))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cells) != 2 || got.Cells[0].Op != "get" || got.Cells[1].Op != "set" {
		t.Fatalf("cells %+v", got.Cells)
	}
	for _, cell := range got.Cells {
		ivs, err := ReadHlog(filepath.Join(dir, cell.Hlog))
		if err != nil || len(ivs) != 1 || ivs[0].TotalCount() != 1 {
			t.Errorf("%s: %d intervals (%v)", cell.Hlog, len(ivs), err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, SummaryFile)); err != nil {
		t.Error(err)
	}

	// A latest that is not a link is left alone; the run is still whole.
	other := t.TempDir()
	if err := os.Mkdir(filepath.Join(other, LatestLink), 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err = WriteRun(other, "w", run, []CellLog{{Cell: c, Start: run.Start, Intervals: []*hdrhistogram.Histogram{h}}})
	if !errors.Is(err, ErrLatest) || dir == "" {
		t.Fatalf("WriteRun with a blocked latest: %q, %v", dir, err)
	}
	if _, err := Load(dir); err != nil {
		t.Errorf("the run behind a blocked latest: %v", err)
	}
}
