package report

import (
	"encoding/json"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// shown are the declared figures with columns some of cells has, which
// then get them, "-" in the rows of cells without.
func shown(cells []results.Cell) []figure.Figure {
	var out []figure.Figure
	for _, f := range figure.All() {
		if len(f.Report.Columns) > 0 && f.Any(cells) {
			out = append(out, f)
		}
	}
	return out
}

// figureCells are c's columns of figs, "-" where c has not the figure,
// numbers printed by num's choice for the figure's unit.
func figureCells(c results.Cell, figs []figure.Figure, num func(figure.Figure) func(float64) string) []string {
	var out []string
	for _, f := range figs {
		for _, col := range f.Report.Columns {
			if !f.Has(c) {
				out = append(out, "-")
				continue
			}
			out = append(out, col.Text(c, num(f)))
		}
	}
	return out
}

// figureHeads are the heads of figs' columns, each picked by head.
func figureHeads(figs []figure.Figure, head func(figure.Column) string) []string {
	var out []string
	for _, f := range figs {
		for _, col := range f.Report.Columns {
			out = append(out, head(col))
		}
	}
	return out
}

// humanNum prints a figure's numbers in the table and markdown formats.
func humanNum(f figure.Figure) func(float64) string { return f.Text }

// summaryNum prints them in the summary: nanoseconds in microseconds,
// as its latencies are, and sizes as the other formats do.
func summaryNum(f figure.Figure) func(float64) string {
	switch f.Unit {
	case figure.NS:
		return us
	case figure.Bytes:
		return f.Text
	}
	return units.Rate
}

// csvFigureHeads are the CSV's figure columns, every row having them.
func csvFigureHeads() []string {
	var out []string
	for _, f := range figure.All() {
		for _, col := range f.Report.CSV {
			out = append(out, col.Head)
		}
	}
	return out
}

// csvFigures are c's figure fields: empty where it has not the figure.
func csvFigures(c results.Cell) []string {
	var out []string
	for _, f := range figure.All() {
		for _, col := range f.Report.CSV {
			if !f.Has(c) {
				out = append(out, "")
				continue
			}
			out = append(out, col.Text(c))
		}
	}
	return out
}

// headerNote and summaryNote pick a figure's note for the table's header
// and for under the summary.
func headerNote(r figure.Report) func([]results.Cell) string  { return r.Note }
func summaryNote(r figure.Report) func([]results.Cell) string { return r.SummaryNote }

// figureNotes are the figures' notes on cells, picked by note, each under
// the figure's name; none where a figure says nothing.
func figureNotes(cells []results.Cell, note func(figure.Report) func([]results.Cell) string) [][2]string {
	var out [][2]string
	for _, f := range figure.All() {
		if n := note(f.Report); n != nil {
			if s := n(cells); s != "" {
				out = append(out, [2]string{f.Name, s})
			}
		}
	}
	return out
}

// MarshalJSON writes the row's fields, then each figure of its cell that
// the json format shows (figure.Report.JSON) under the figure's name,
// then its warnings and checks.
func (r Row) MarshalJSON() ([]byte, error) {
	type plain Row // Row's fields without this method
	p := plain(r)
	p.Warnings, p.Checks = nil, nil
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	b = b[:len(b)-1] // the closing brace
	for _, f := range figure.All() {
		if f.Report.JSON != nil && f.Has(r.cell) {
			if b, err = appendField(b, f.Name, f.Report.JSON(r.cell)); err != nil {
				return nil, err
			}
		}
	}
	if len(r.Warnings) > 0 {
		if b, err = appendField(b, "warnings", r.Warnings); err != nil {
			return nil, err
		}
	}
	if len(r.Checks) > 0 {
		if b, err = appendField(b, "checks", r.Checks); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendField appends ,"key":value to an object's fields.
func appendField(b []byte, key string, value any) ([]byte, error) {
	k, err := json.Marshal(key)
	if err != nil {
		return nil, err
	}
	v, err := json.Marshal(value)
	if err != nil {
		return nil, err
	}
	b = append(append(append(b, ','), k...), ':')
	return append(b, v...), nil
}
