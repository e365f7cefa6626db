package report

import (
	"slices"

	"github.com/kvbench/kvbench/internal/results"
)

// wholeNote explains the rows of op "all" that follow a mixed run's cells.
const wholeNote = "the whole workload at each threshold: every op and protocol of the threshold as one, their histograms merged and their operations over the phase they shared"

// rowsWithWhole are the run's rows, then the whole workload's of each
// threshold of its mixed cells (results.WholeCells).
func rowsWithWhole(run *results.Run) ([]Row, error) {
	whole, err := results.WholeCells(run.Cells)
	if err != nil {
		return nil, err
	}
	return append(slices.Clip(Rows(run)), rowsOf(whole)...), nil
}
