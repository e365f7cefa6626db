package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// view is how a report view of rows R prints in each of viewFormats:
// table and markdown from columns and human, csv from head and raw,
// json as the rows themselves.
type view[R any] struct {
	// empty is what table and markdown say when there is no row.
	empty   string
	columns []string
	human   func(R) []string
	head    []string
	raw     func(R) []string
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
	}
	return unknownFormat(format, viewFormats)
}
