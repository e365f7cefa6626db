package report

import (
	"html/template"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/results"
)

// htmlTable is rows as an HTML table of columns, each row's cells from
// human. cellOf, when not nil, gives the cell a row shows: the numbers
// of a cell not to be trusted are marked, the reason in their hover text.
func htmlTable[R any](columns []string, rows []R, human func(R) []string, cellOf func(R) (results.Cell, bool)) template.HTML {
	out := make([][]htmlpage.Cell, len(rows))
	for i, r := range rows {
		note, tail := "", false
		if cellOf != nil {
			if c, ok := cellOf(r); ok {
				note, tail = distrust(c), tailOnly(c)
			}
		}
		for j, s := range human(r) {
			hc := htmlpage.N(s)
			if word(s) {
				hc = htmlpage.T(s)
			} else if note != "" && (!tail || j < len(columns) && tailColumn(columns[j])) {
				hc.Untrusted, hc.Note = true, note
			}
			out[i] = append(out[i], hc)
		}
	}
	return htmlpage.Table(columns, out)
}

// tailOnly says all that is wrong with c is its p99's precision: its
// median and rate stand (results.Cell.TrustedMedian), so only its tail's
// numbers are marked.
func tailOnly(c results.Cell) bool {
	if !c.TrustedMedian() {
		return false
	}
	for _, w := range c.Warnings {
		if w.Kind != results.WarnCheckPrefix+results.CheckTailPrecision {
			return false
		}
	}
	return true
}

// tailColumn says a column shows the tail, which tail_precision speaks
// for: the p99 and beyond.
func tailColumn(name string) bool { return strings.HasPrefix(name, "p99") || name == "max" }

// distrust says why c is not to be trusted: its warnings (a failed check
// gives one), or its failed checks where it kept no warning; "" for a
// cell to be trusted.
func distrust(c results.Cell) string {
	var why []string
	for _, w := range c.Warnings {
		why = append(why, w.Message)
	}
	if len(why) == 0 && !c.Trusted() {
		why = append(why, checkSummary(c.Checks))
	}
	return strings.Join(why, "; ")
}

// word says a table cell holds a word (an op, a protocol, "adaptive"),
// which aligns left and is no figure to distrust.
func word(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

// rowCell is the cell a Row shows, for htmlTable.
func rowCell(r Row) (results.Cell, bool) { return r.cell, true }

// writeHTMLView writes a page of one section, a view's table (or what it
// says when empty).
func writeHTMLView(w io.Writer, title string, body template.HTML) error {
	p := &htmlpage.Page{Title: title}
	p.Add("view", title, body)
	return p.Write(w)
}
