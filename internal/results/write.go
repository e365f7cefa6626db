package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// CellLog is one measured cell with its interval histograms, what its .hlog
// file holds (Cell.Hlog names it).
type CellLog struct {
	Cell      Cell
	Start     time.Time
	Intervals []*hdrhistogram.Histogram
}

// SummaryFunc renders the table a run directory keeps as summary.txt:
// report.WriteSummary, which its callers pass in because package report
// reads this one.
type SummaryFunc func(io.Writer, *Run) error

// ErrLatest marks a WriteRun whose run directory is complete but whose
// latest link could not be pointed at it.
var ErrLatest = errors.New("results: latest link not updated")

// WriteRun creates a run directory under parent named after workload and
// run.Start (see CreateRunDir) and writes the run into it: every cell's
// interval log, then results.json and summary.txt (rendered by summary),
// each atomically, so a directory with a results.json has every .hlog it
// names. run.Cells gets the cells, in order, each with its Warnings set
// (AddWarnings). Then parent/latest is pointed at it; when only that
// fails, the error wraps ErrLatest and the directory is still returned.
func WriteRun(parent, workload string, run *Run, cells []CellLog, summary SummaryFunc) (string, error) {
	dir, err := CreateRunDir(parent, workload, run.Start)
	if err != nil {
		return "", err
	}
	if err := writeRunFiles(dir, run, cells, summary); err != nil {
		return "", err
	}
	if err := UpdateLatest(parent, dir); err != nil {
		return dir, fmt.Errorf("%w: %w", ErrLatest, err)
	}
	return dir, nil
}

// RewriteRun writes the run into dir, an existing run directory (see
// CreateRunDir), replacing what it held file by file, each atomically: a
// checkpoint that grows as the run goes.
func RewriteRun(dir string, run *Run, cells []CellLog, summary SummaryFunc) error {
	return writeRunFiles(dir, run, cells, summary)
}

// writeRunFiles judges the cells (AddRunChecks, AddWarnings) before it
// writes them, so that every run directory carries its warnings,
// summary.txt included.
func writeRunFiles(dir string, run *Run, cells []CellLog, summary SummaryFunc) error {
	AddRunChecks(run, cells)
	AddWarnings(cells)
	run.Cells = run.Cells[:0]
	for _, cl := range cells {
		c := cl.Cell
		comment := fmt.Sprintf("[kvbench cell op=%s protocol=%s value_size=%d threshold=%d]", c.Op, c.Protocol, c.ValueSize, c.Threshold)
		if err := WriteHlog(filepath.Join(dir, filepath.FromSlash(c.Hlog)), comment, cl.Start, cl.Intervals); err != nil {
			return err
		}
		run.Cells = append(run.Cells, c)
	}
	if err := run.Save(dir); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := summary(&buf, run); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, SummaryFile), buf.Bytes())
}
