package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// writeTrust says how many of the tune's measurements passed every check
// (tune.Result.Trust) and which checks the others failed, in how many:
// "checks (docs/TRUST.md): 38 of 40 measurements passed every check;
// failed: harness_overhead in 2, stationarity in 1". Nothing when no
// measurement carries checks.
func (t *tuneReport) writeTrust(b *strings.Builder) {
	tr := t.r.Trust()
	if tr.Checked == 0 {
		return
	}
	fmt.Fprintf(b, "checks (docs/TRUST.md): %d of %d measurements passed every check", tr.Passed, tr.Checked)
	var failed []string
	for _, name := range slices.Sorted(maps.Keys(tr.Failed)) {
		failed = append(failed, fmt.Sprintf("%s in %d", name, tr.Failed[name]))
	}
	if len(failed) > 0 {
		b.WriteString("; failed: " + strings.Join(failed, ", "))
	}
	b.WriteString("\n")
}
