package report

import (
	"fmt"
	"html/template"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/results"
)

// perSizeCap is the most (op, value size) pairs whose percentile and
// timeline figures a page inlines: there are two per pair, most of a
// sweep's figures and bytes, and a timeline grows with the run's
// intervals, while kvbench plot draws them all as files.
const perSizeCap = 8

// figuresBody is the figures kvbench plot draws for run, read from dir,
// with the percentiles and timelines of a run of few sizes. A run plot
// cannot draw (a histogram results.json holds broken) gets a page
// without figures that says why: its tables still stand.
func figuresBody(run *results.Run, dir string) ([]template.HTML, error) {
	pairs := 0
	for _, op := range plot.Ops(run) {
		pairs += len(plot.Sizes(run, op))
	}
	perSize := pairs <= perSizeCap
	figs, warnings, err := plot.Figures(run, dir, plot.Options{Percentiles: perSize, Timelines: perSize})
	if err != nil {
		return []template.HTML{htmlpage.Para("No figures: " + err.Error() + ".")}, nil
	}
	var body []template.HTML
	if len(figs) == 0 {
		body = append(body, htmlpage.Para("Nothing to plot: no cell has a positive value size and measurements."))
	}
	if !perSize {
		body = append(body, htmlpage.Para(fmt.Sprintf("The percentile distribution and the timeline of each of the %d (op, value size) pairs are left out to keep the page small: kvbench plot draws them.", pairs)))
	}
	for _, f := range figs {
		fig, err := inline(run, f)
		if err != nil {
			return nil, err
		}
		body = append(body, fig)
	}
	if len(warnings) > 0 {
		var lines []string
		for _, w := range warnings {
			lines = append(lines, "skipped: "+w.Error())
		}
		body = append(body, htmlpage.List("warnings", lines))
	}
	return body, nil
}

// inline is f as an inline SVG figure at kvbench plot's size, captioned
// with its file name and, as a saved figure is, the build.
func inline(run *results.Run, f *plot.Figure) (template.HTML, error) {
	f.Caption = run.Build()
	return htmlpage.Figure(f)
}
