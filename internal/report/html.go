package report

import (
	"fmt"
	"html/template"
	"io"
	"slices"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// Site says where a run's page reads from and goes: RunDir holds the
// run (its interval logs, drawn, and its files, linked) and PageDir
// receives the page, which the links are relative to. Empty is the
// current directory.
type Site struct{ RunDir, PageDir string }

// WritePage writes run's page (RunPage).
func WritePage(w io.Writer, run *results.Run, site Site) error {
	p, err := RunPage(run, site)
	if err != nil {
		return err
	}
	return p.Write(w)
}

// RunPage is run as one self-contained page, its sections in the order a
// reader asks: what ran ("ran"), what it answers ("answer"), the cells
// with their warnings and checks ("cells"), the figures kvbench plot
// draws ("figures"), the phases when recorded ("phases") and the raw
// files ("raw").
func RunPage(run *results.Run, site Site) (*htmlpage.Page, error) {
	p := &htmlpage.Page{Title: "kvbench run " + WorkloadName(run),
		Sub: fmt.Sprintf("%s over %s, %s, %s", storeLine(run), run.Transport.Name, units.Plural(len(run.Cells), "cell"), run.Start.UTC().Format("2006-01-02 15:04 MST"))}
	p.Add("ran", "What ran", htmlpage.Facts(header(run)...))
	answer, err := answerBody(run)
	if err != nil {
		return nil, err
	}
	p.Add("answer", "The answer", answer...)
	cells, err := cellsBody(run)
	if err != nil {
		return nil, err
	}
	p.Add("cells", "Cells", cells...)
	figs, err := figuresBody(run, site.RunDir)
	if err != nil {
		return nil, err
	}
	p.Add("figures", "Figures", figs...)
	if rows, names := PhaseRows(run); len(rows) > 0 {
		p.Add("phases", "Where the time went",
			htmlpage.Para("The p50 of each phase of each cell (sum: of the phase p50s, about the cell's p50 in a steady run)."),
			phasesHTML(rows, names))
	}
	raw, err := rawBody(run, site)
	if err != nil {
		return nil, err
	}
	p.Add("raw", "Raw data", raw...)
	return p, nil
}

// cellsBody is the cells table, with the whole workload's rows of a
// mixed run, then the cells' warnings and checks.
func cellsBody(run *results.Run) ([]template.HTML, error) {
	rows, err := rowsWithWhole(run)
	if err != nil {
		return nil, err
	}
	figs := shown(run.Cells)
	var body []template.HTML
	if slices.ContainsFunc(run.Cells, func(c results.Cell) bool { return distrust(c) != "" }) {
		body = append(body, htmlpage.Para("The figures of a cell not to be trusted are marked ! (why, on hovering them and in the warnings below)."))
	}
	body = append(body, htmlTable(columns(figs), rows, func(r Row) []string { return humanRow(r, figs) }, rowCell))
	if lines := warningLines(sorted(run)); len(lines) > 0 {
		body = append(body, htmlpage.Para("Warnings (docs/USAGE.md says what each means):"), htmlpage.List("warnings", lines))
	}
	if lines := checkLines(sorted(run)); len(lines) > 0 {
		body = append(body, htmlpage.Para("Checks (docs/TRUST.md says what each means):"), htmlpage.List("checks", lines))
	}
	return body, nil
}
