package results

import (
	"errors"
	"fmt"
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

// ErrLatest marks a WriteRun whose run directory is complete but whose
// latest link could not be pointed at it.
var ErrLatest = errors.New("results: latest link not updated")

// WriteRun creates a run directory under parent named after workload and
// run.Start (see CreateRunDir) and writes the run into it: every cell's
// interval log, then results.json and summary.txt, each atomically, so a
// directory with a results.json has every .hlog it names. run.Cells gets
// the cells, in order, each with its Warnings set (AddWarnings). Then
// parent/latest is pointed at it; when only that fails, the error wraps
// ErrLatest and the directory is still returned.
func WriteRun(parent, workload string, run *Run, cells []CellLog) (string, error) {
	dir, err := CreateRunDir(parent, workload, run.Start)
	if err != nil {
		return "", err
	}
	if err := writeRunFiles(dir, run, cells); err != nil {
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
func RewriteRun(dir string, run *Run, cells []CellLog) error { return writeRunFiles(dir, run, cells) }

// writeRunFiles judges the cells (AddWarnings) before it writes them, so
// that every run directory carries its warnings.
func writeRunFiles(dir string, run *Run, cells []CellLog) error {
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
	return SaveSummary(dir, run)
}
