package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/results"
)

// view is how a report view of rows R prints in each of viewFormats:
// table, markdown and html from columns and human, csv from head and
// raw, json as the rows themselves.
type view[R any] struct {
	// title heads the view's html page.
	title string
	// empty is what table, markdown and html say when there is no row.
	empty   string
	columns []string
	human   func(R) []string
	head    []string
	raw     func(R) []string
	// cell, when set, is the cell a row shows, whose numbers html marks
	// when it is not to be trusted.
	cell func(R) (results.Cell, bool)
}

func (v view[R]) write(w io.Writer, rows []R, format string) error {
	if len(rows) == 0 && (format == "table" || format == "markdown") {
		_, err := fmt.Fprintln(w, v.empty)
		return err
	}
	switch format {
	case "table":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, strings.Join(v.columns, "\t")+"\t")
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(v.human(r), "\t")+"\t")
		}
		return tw.Flush()
	case "markdown":
		var b strings.Builder
		var cells [][]string
		for _, r := range rows {
			cells = append(cells, v.human(r))
		}
		mdTable(&b, v.columns, cells)
		_, err := io.WriteString(w, b.String())
		return err
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write(v.head)
		for _, r := range rows {
			_ = cw.Write(v.raw(r))
		}
		cw.Flush()
		return cw.Error()
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	case "html":
		return writeHTMLView(w, v.title, v.html(rows))
	}
	return unknownFormat(format, viewFormats)
}

// html is the rows as an HTML table, or what the view says when empty.
func (v view[R]) html(rows []R) template.HTML {
	if len(rows) == 0 {
		return htmlpage.Para(v.empty)
	}
	return htmlTable(v.columns, rows, v.human, v.cell)
}
