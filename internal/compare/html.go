package compare

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
)

// WriteHTML writes the comparison of the runs as and bs as one
// self-contained page: what the sides are, the differences (the cells
// with a significant change first, each untrusted cell marked where its
// numbers are), the figures kvbench plot A B draws, and links to each
// run's results.json relative to pageDir, the directory the page is
// written to.
func (r *Result) WriteHTML(w io.Writer, as, bs []Run, pageDir string) error {
	p := &htmlpage.Page{Title: "kvbench compare: " + sideName(as) + " vs " + sideName(bs), Sub: r.notes()[0]}
	p.Add("compared", "What was compared", sidesTable(as, bs))
	p.Add("differences", "Differences", r.differenceBlocks()...)
	figs, err := compareFigures(as, bs)
	if err != nil {
		return err
	}
	p.Add("figures", "Figures", figs...)
	raw, err := rawLinks(as, bs, pageDir)
	if err != nil {
		return err
	}
	p.Add("raw", "Raw files", raw)
	return p.Write(w)
}

// sideName is the directory a side was read from: the run's, or the one
// holding its runs.
func sideName(runs []Run) string {
	if len(runs) == 1 {
		return filepath.Base(runs[0].Dir)
	}
	return filepath.Base(filepath.Dir(runs[0].Dir))
}

// sidesTable sets the sides' runs, workloads, targets, builds, hosts and
// seeds side by side, each value once a side.
func sidesTable(as, bs []Run) template.HTML {
	facts := []struct {
		name string
		of   func(Run) string
	}{
		{"directory", func(r Run) string { return r.Dir }},
		{"workload", func(r Run) string { return report.WorkloadName(r.Run) }},
		{"target", func(r Run) string { return r.TargetLabel() }},
		{"build", func(r Run) string { return r.Build() }},
		{"host", func(r Run) string { return r.Host.Hostname }},
		{"seed", func(r Run) string { return fmt.Sprint(r.Seed) }},
	}
	rows := [][]htmlpage.Cell{{htmlpage.T("runs"), htmlpage.N(fmt.Sprint(len(as))), htmlpage.N(fmt.Sprint(len(bs)))}}
	for _, f := range facts {
		rows = append(rows, []htmlpage.Cell{htmlpage.T(f.name), htmlpage.T(distinct(as, f.of)), htmlpage.T(distinct(bs, f.of))})
	}
	return htmlpage.Table([]string{"", "A", "B"}, rows)
}

// distinct is of each run, each value once, in the runs' order.
func distinct(runs []Run, of func(Run) string) string {
	var vs []string
	for _, r := range runs {
		if v := of(r); !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return strings.Join(vs, ", ")
}

// differenceBlocks are the table of differences, the notes under it, the
// failed checks of the untrusted cells, the cells of one side only and
// the size classes.
func (r *Result) differenceBlocks() []template.HTML {
	out := []template.HTML{r.differencesTable()}
	for _, n := range r.notes() {
		out = append(out, htmlpage.Para(n))
	}
	var untrusted []string
	for _, c := range r.Cells {
		if !c.Trusted() {
			untrusted = append(untrusted, c.Key.String()+": "+strings.Join(c.Untrusted, "; "))
		}
	}
	if len(untrusted) > 0 {
		out = append(out, htmlpage.Para("! not to be trusted: a side's cell failed a check (docs/TRUST.md); --fail-on-regression ignores its regressions unless --strict."),
			htmlpage.List("warnings", untrusted))
	}
	var only []string
	for _, k := range r.OnlyA {
		only = append(only, "only in A: "+k.String())
	}
	for _, k := range r.OnlyB {
		only = append(only, "only in B: "+k.String())
	}
	if len(only) > 0 {
		out = append(out, htmlpage.List("", only))
	}
	if len(r.SizeClasses) > 0 {
		rows := r.classRows()
		out = append(out, htmlpage.Para(classesTitle), htmlpage.Table(rows[0], cells(rows[1:], "")))
	}
	return out
}

// differencesTable is the text format's table, the cells with a
// significant change first; an untrusted cell's numbers and verdict are
// marked, its failed checks their note.
func (r *Result) differencesTable() template.HTML {
	cols, _ := r.columns()
	ordered := slices.Clone(r.Cells)
	slices.SortStableFunc(ordered, func(x, y CellDiff) int { return cmp.Compare(rank(x), rank(y)) })
	var rows [][]htmlpage.Cell
	for _, c := range ordered {
		row := cells([][]string{append(c.row(cols), c.verdict())}, strings.Join(c.Untrusted, "; "))[0]
		row[len(row)-1].Left = true
		rows = append(rows, row)
	}
	return htmlpage.Table(append(headers(cols), "verdict"), rows)
}

// rank orders cells for the page: a significant change first, then the
// rest.
func rank(c CellDiff) int {
	if slices.ContainsFunc(c.Metrics, func(m Metric) bool { return m.Significant }) {
		return 0
	}
	return 1
}

// cells are rows of the key's four word columns then numbers, the last
// column (a verdict) a word too when the row has one; a doubt marks every
// cell past the key as untrusted.
func cells(rows [][]string, doubt string) [][]htmlpage.Cell {
	out := make([][]htmlpage.Cell, len(rows))
	for i, row := range rows {
		for j, s := range row {
			c := htmlpage.N(s)
			if j < 4 {
				c = htmlpage.T(s)
			} else if doubt != "" {
				c.Untrusted, c.Note = true, doubt
			}
			out[i] = append(out[i], c)
		}
	}
	return out
}

// compareFigures are the figures kvbench plot draws of the latest run of
// each side, inline.
func compareFigures(as, bs []Run) ([]template.HTML, error) {
	runs := []plot.RunDir{{Run: as[len(as)-1].Run, Dir: as[len(as)-1].Dir}, {Run: bs[len(bs)-1].Run, Dir: bs[len(bs)-1].Dir}}
	figs, err := plot.CompareFigures(runs)
	if err != nil {
		return nil, err
	}
	out := []template.HTML{htmlpage.Para("the latest run of each side, as kvbench plot A B draws them")}
	for _, f := range figs {
		h, err := htmlpage.Figure(f)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, nil
}

// rawLinks link each run's results.json, relative to pageDir.
func rawLinks(as, bs []Run, pageDir string) (template.HTML, error) {
	var links [][2]string
	for _, side := range []struct {
		name string
		runs []Run
	}{{"A", as}, {"B", bs}} {
		for _, r := range side.runs {
			rel, err := htmlpage.Rel(pageDir, filepath.Join(r.Dir, results.ResultsFile))
			if err != nil {
				return "", err
			}
			links = append(links, [2]string{rel, side.name + ": " + rel})
		}
	}
	return htmlpage.LinkList(links...), nil
}
