package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
	dir, err := WriteRun(parent, "my run", run, []CellLog{{Cell: c, Start: run.Start, Intervals: []*hdrhistogram.Histogram{h}}, {Cell: put, Start: run.Start, Intervals: []*hdrhistogram.Histogram{h}}}, cellWarnings)
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
	dir, err = WriteRun(other, "w", run, []CellLog{{Cell: c, Start: run.Start, Intervals: []*hdrhistogram.Histogram{h}}}, cellWarnings)
	if !errors.Is(err, ErrLatest) || dir == "" {
		t.Fatalf("WriteRun with a blocked latest: %q, %v", dir, err)
	}
	if _, err := Load(dir); err != nil {
		t.Errorf("the run behind a blocked latest: %v", err)
	}
}

// cellWarnings stands in for report.WriteSummary: it lists every cell's
// warnings, so a test sees what the summary was given.
func cellWarnings(w io.Writer, r *Run) error {
	for _, c := range r.Cells {
		for _, warn := range c.Warnings {
			if _, err := fmt.Fprintf(w, "%s: %s\n", c.Name(), warn.Message); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteRun judges the cells it writes: results.json and summary.txt carry
// their warnings.
func TestWriteRunWarns(t *testing.T) {
	run := sampleRun(t, "")
	c := run.Cells[0]
	c.Load = CellLoad{Mode: "closed", Connections: 1, Depth: 1}
	c.Latency.Min, c.Latency.P50 = 10e3, 80e3 // one in flight, p50 8x its fastest
	run.Cells = nil
	dir, err := WriteRun(t.TempDir(), "warned", run, []CellLog{{Cell: c, Start: run.Start}}, cellWarnings)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if w := got.Cells[0].Warnings; len(w) != 1 || w[0].Kind != WarnP50FarAboveMin {
		t.Errorf("results.json warnings %+v, want p50_far_above_min", w)
	}
	sum, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sum), c.Name()+": p50 far above the minimum: p50 80µs is 8.0× t_min 10µs") {
		t.Errorf("summary.txt does not list the warning:\n%s", sum)
	}
}
