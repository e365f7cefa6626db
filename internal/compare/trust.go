package compare

import (
	"slices"

	"github.com/kvbench/kvbench/internal/results"
)

// untrusted names the failed checks (results.Cell.Checks) of one side's
// instances of a cell, each once, after the side: "A: stationarity
// (interval max)". A difference whose either side failed a check may
// measure the failure, not the change. With several runs a side the
// precision checks do not count: the test is then over the runs'
// figures, whose spread already holds each run's sampling error, not
// over one run's quantile intervals.
func untrusted(side string, cells []results.Cell) []string {
	var out []string
	for _, c := range cells {
		for _, k := range c.Checks {
			if len(cells) > 1 && results.IsPrecision(k.Name) {
				continue
			}
			if s := side + ": " + k.Name + " (" + k.Method + ")"; !k.Pass && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// trust sets d's Untrusted from the cells of sides A and B.
func (d *CellDiff) trust(as, bs []results.Cell) {
	d.Untrusted = append(untrusted("A", as), untrusted("B", bs)...)
}

// Trusted reports whether every check of the cells on both sides passed.
func (d CellDiff) Trusted() bool { return len(d.Untrusted) == 0 }
