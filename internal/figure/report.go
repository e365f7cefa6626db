package figure

import "github.com/kvbench/kvbench/internal/results"

// Report is how report prints a figure.
type Report struct {
	// Columns follow the latency columns of the table, markdown and
	// summary formats when some cell has the figure; "-" where a cell
	// has not.
	Columns []Column
	// CSV are the figure's CSV columns, in every row: empty where the
	// cell has not the figure.
	CSV []CSVColumn
	// Note, when it says something of cells, is a line of the table's
	// and markdown's header under the figure's name.
	Note func(cells []results.Cell) string
	// SummaryNote, when it says something of cells, is a line under the
	// summary's table after the figure's name.
	SummaryNote func(cells []results.Cell) string
	// JSON, when set, is the figure in the json format's rows, under its
	// name, for a cell that has it.
	JSON func(results.Cell) any
}

// Column is one column of the human formats.
type Column struct {
	// Head is the column's head in the table and markdown formats;
	// Summary in the summary format.
	Head, Summary string
	// Text prints the figure of a cell that has it, each number in the
	// figure's unit through num, which report picks for the format.
	Text func(c results.Cell, num func(float64) string) string
}

// CSVColumn is one CSV column.
type CSVColumn struct {
	Head string
	// Text is the field of a cell that has the figure, numbers in full.
	Text func(results.Cell) string
}
