package report

import (
	"fmt"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// checkLines summarise the cells' checks (results.Cell.Checks): one line
// for each cell with a failed check, naming what failed and why, then one
// counting the cells whose every check passed, so that a sweep of healthy
// cells costs one line. No line when no cell was checked.
func checkLines(cells []results.Cell) []string {
	var out []string
	passed := 0
	for _, c := range cells {
		switch {
		case len(c.Checks) == 0:
		case c.Trusted():
			passed++
		default:
			out = append(out, c.Name()+": "+checkSummary(c.Checks))
		}
	}
	if passed > 0 {
		out = append(out, "every check passed in "+units.Plural(passed, "cell"))
	}
	return out
}

// checkSummary is "4 of 5 checks passed; stationarity failed: 8 of 8 1s
// intervals stalled (...) (interval max)".
func checkSummary(checks []results.Check) string {
	n := 0
	var failed []string
	for _, k := range checks {
		if k.Pass {
			n++
			continue
		}
		failed = append(failed, fmt.Sprintf("%s failed: %s (%s)", k.Name, k.Figure, k.Method))
	}
	return strings.Join(append([]string{fmt.Sprintf("%d of %d checks passed", n, len(checks))}, failed...), "; ")
}

// csvChecks puts a cell's checks in two fields: "passed/run", empty when
// none ran, and the failed ones as name/method, joined by "; ".
func csvChecks(checks []results.Check) (tally, failed string) {
	if len(checks) == 0 {
		return "", ""
	}
	n := 0
	var f []string
	for _, k := range checks {
		if k.Pass {
			n++
		} else {
			f = append(f, k.Name+"/"+k.Method)
		}
	}
	return fmt.Sprintf("%d/%d", n, len(checks)), strings.Join(f, "; ")
}
