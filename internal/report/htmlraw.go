package report

import (
	"html/template"
	"os"
	"path/filepath"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/results"
)

// rawBody links the run's results.json and each cell's interval log that
// is there, relative to the page.
func rawBody(run *results.Run, site Site) ([]template.HTML, error) {
	link := func(name string) (string, error) {
		return htmlpage.Rel(dirOr(site.PageDir), filepath.Join(dirOr(site.RunDir), filepath.FromSlash(name)))
	}
	var items [][2]string
	for _, name := range append([]string{"results.json"}, hlogNames(run)...) {
		if _, err := os.Stat(filepath.Join(dirOr(site.RunDir), filepath.FromSlash(name))); err != nil {
			continue
		}
		href, err := link(name)
		if err != nil {
			return nil, err
		}
		items = append(items, [2]string{href, name})
	}
	body := []template.HTML{htmlpage.Para("The run's files, linked from where this page was written: results.json holds every cell; each interval log (.hlog) the cell's latencies per interval.")}
	if len(items) == 0 {
		return append(body, htmlpage.Para("None of the run's files is beside the run this page was made from.")), nil
	}
	return append(body, htmlpage.LinkList(items...)), nil
}

// hlogNames are the cells' interval logs, in the cells table's order.
func hlogNames(run *results.Run) []string {
	var out []string
	for _, c := range sorted(run) {
		if c.Hlog != "" {
			out = appendNew(out, c.Hlog)
		}
	}
	return out
}

func dirOr(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}
