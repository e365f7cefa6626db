package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// writeTrust says how many of the tune's measurements the answer can
// trust (tune.Result.Trust: every check, or for an answer that does not
// rest on the p99 every check but tail_precision) and which checks
// failed, in how many:
// "checks (docs/TRUST.md): 38 of 40 measurements passed every check;
// failed: harness_overhead in 2, stationarity in 1". Nothing when no
// measurement carries checks.
func (t *tuneReport) writeTrust(b *strings.Builder) {
	tr := t.r.Trust()
	if tr.Checked == 0 {
		return
	}
	what := "passed every check"
	if !t.r.Config.Tail() {
		what = "passed every check its median needs" // tail_precision aside
	}
	fmt.Fprintf(b, "checks (docs/TRUST.md): %d of %d measurements %s", tr.Passed, tr.Checked, what)
	var failed []string
	for _, name := range slices.Sorted(maps.Keys(tr.Failed)) {
		failed = append(failed, fmt.Sprintf("%s in %d", name, tr.Failed[name]))
	}
	if len(failed) > 0 {
		b.WriteString("; failed: " + strings.Join(failed, ", "))
	}
	b.WriteString("\n")
}
