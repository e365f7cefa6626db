package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/figure/figuretest"
	"github.com/kvbench/kvbench/internal/results"
)

// filled is the cpu fixture with every declared figure in every cell but
// the first, which has none.
func filled(t *testing.T) *results.Run {
	t.Helper()
	run, _, err := results.Open("testdata/cpu")
	if err != nil {
		t.Fatal(err)
	}
	run.Cells[0] = results.Cell{Op: run.Cells[0].Op, ValueSize: run.Cells[0].ValueSize, Threshold: run.Cells[0].Threshold,
		Protocol: run.Cells[0].Protocol, Count: run.Cells[0].Count}
	for i := range run.Cells[1:] {
		figuretest.Fill(t, &run.Cells[i+1])
	}
	return run
}

func render(t *testing.T, run *results.Run, format string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, run, format); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// csvRecords are the CSV's header and rows, by column.
func csvRecords(t *testing.T, run *results.Run) (head []string, rows []map[string]string) {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(render(t, run, "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[1:] {
		row := map[string]string{}
		for i, h := range recs[0] {
			row[h] = r[i]
		}
		rows = append(rows, row)
	}
	return recs[0], rows
}

// Every declared figure's CSV columns are in the header, between the
// latencies and the warnings, filled where a cell has the figure and
// empty where not; its table, markdown and summary columns are there
// when a cell has it, "-" where not; the json rows carry the figures
// report shows in them, under their names.
func TestEveryFigureReports(t *testing.T) {
	run := filled(t)
	head, rows := csvRecords(t, run)
	if i, j := slices.Index(head, "max_ns"), slices.Index(head, "warning_kinds"); !slices.Equal(head[i+1:j], csvFigureHeads()) {
		t.Errorf("CSV header %v", head)
	}
	for _, f := range figure.All() {
		for _, col := range f.Report.CSV {
			if !slices.Contains(head, col.Head) || rows[0][col.Head] != "" {
				t.Errorf("%s: CSV column %s, in a cell without the figure %q", f.Name, col.Head, rows[0][col.Head])
			}
		}
		for _, col := range f.Report.Columns {
			for format, h := range map[string]string{"table": col.Head, "markdown": col.Head, "summary": col.Summary} {
				if !strings.Contains(render(t, run, format), h) {
					t.Errorf("%s: %s has no column %s", f.Name, format, h)
				}
			}
		}
	}
	var doc struct{ Cells []map[string]json.RawMessage }
	if err := json.Unmarshal([]byte(render(t, run, "json")), &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range figure.All() {
		for i, row := range doc.Cells {
			if _, ok := row[f.Name]; ok != (f.Report.JSON != nil && f.Has(sorted(run)[i])) {
				t.Errorf("%s: in json row %d: %v", f.Name, i, ok)
			}
		}
	}
}

// A figure declared by the test alone prints in every format with no
// edit of report's: its column in table, markdown and summary, its note
// in the header, its CSV column and its json field.
func TestRegisteredFigureReports(t *testing.T) {
	t.Cleanup(figure.Register(figuretest.Fake()))
	run, _, err := results.Open("testdata/cpu")
	if err != nil {
		t.Fatal(err)
	}
	run.Cells[1].IntervalNs = 1234
	head, rows := csvRecords(t, run)
	if head[slices.Index(head, "warning_kinds")-1] != figuretest.FakeName || !slices.ContainsFunc(rows, func(r map[string]string) bool { return r[figuretest.FakeName] == "1234" }) {
		t.Errorf("CSV header %v, rows %v", head, rows)
	}
	for format, want := range map[string][]string{
		"table":    {" fake", "1.23k", figuretest.FakeName + ":", figuretest.FakeNote},
		"markdown": {"| fake |", "1.23k", figuretest.FakeNote},
		"summary":  {"fake[ticks]", "1.23k"},
		"json":     {`"` + figuretest.FakeName + `": 1234`},
	} {
		out := render(t, run, format)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no %q in\n%s", format, w, out)
			}
		}
	}
}
