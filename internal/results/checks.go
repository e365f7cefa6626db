package results

import (
	"fmt"
	"slices"
	"strings"
)

// Check is one test of whether a cell's figures can be trusted: what was
// tested, by which method, the statistic it gave, its p-value where the
// method has one, a figure a reader can weigh, and the verdict. A cell
// carries every check that applied to it (Cell.Checks); a failed one also
// becomes a warning (CheckWarnings), so every view that shows warnings
// shows it. docs/TRUST.md says what each check means and what to do when
// one fails.
type Check struct {
	// Name is the check, one of the Check* constants.
	Name string `json:"name"`
	// Method names the test: "mann-kendall", "spearman lag-1", ...
	Method    string  `json:"method"`
	Statistic float64 `json:"statistic"`
	// P is the test's p-value; absent for a check that is a figure
	// against a bound, not a test.
	P *float64 `json:"p,omitempty"`
	// Figure says the result in words and units: "p99 ±3.1% (95% CI)".
	Figure string `json:"figure,omitempty"`
	Pass   bool   `json:"pass"`
}

// Check names. A check the cell's own figures decide is recomputed when a
// run is rewritten or merged (AddWarnings); one the harness decides from
// what only it saw (a sample of consecutive latencies, the issue times,
// the host) is kept as recorded.
const (
	CheckIndependence  = "independence"
	CheckStationarity  = "stationarity"
	CheckInterarrival  = "interarrival"
	CheckLateStarts    = "late_starts"
	CheckPrecision     = "precision"
	CheckTailPrecision = "tail_precision"
	CheckHost          = "host"
	CheckOverhead      = "harness_overhead"
)

// WarnCheckPrefix prefixes the Kind of the warning a failed check gives:
// "check_stationarity".
const WarnCheckPrefix = "check_"

// CheckWarnings are the warnings of c's failed checks, one each.
func CheckWarnings(checks []Check) []Warning {
	var out []Warning
	for _, k := range checks {
		if k.Pass {
			continue
		}
		msg := k.Name + " check failed"
		if k.Figure != "" {
			msg += ": " + k.Figure
		}
		if k.P != nil {
			msg += fmt.Sprintf(" (%s, p=%.3g)", k.Method, *k.P)
		} else if k.Method != "" {
			msg += " (" + k.Method + ")"
		}
		out = append(out, Warning{Kind: WarnCheckPrefix + k.Name, Message: msg})
	}
	return out
}

// SetChecks replaces checks of the names in fresh by fresh's, keeping the
// others, in name order, so that a check recomputed on a rewrite does not
// pile up beside its earlier self.
func SetChecks(checks, fresh []Check) []Check {
	out := slices.DeleteFunc(slices.Clone(checks), func(k Check) bool {
		return slices.ContainsFunc(fresh, func(f Check) bool { return f.Name == k.Name && f.Method == k.Method })
	})
	out = append(out, fresh...)
	slices.SortStableFunc(out, func(a, b Check) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Trusted reports whether every check of c passed: its figures, the tail
// among them, can be trusted.
func (c Cell) Trusted() bool { return TrustedChecks(c.Checks, true) }

// TrustedMedian reports whether c's figures short of its tail (p50,
// rate, CPU per operation) can be trusted: every check passed but
// tail_precision, which speaks for the p99 alone.
func (c Cell) TrustedMedian() bool { return TrustedChecks(c.Checks, false) }

// TrustedChecks reports whether every check passed, tail_precision
// included only when tail is set.
func TrustedChecks(checks []Check, tail bool) bool {
	return !slices.ContainsFunc(checks, func(k Check) bool { return !k.Pass && (tail || k.Name != CheckTailPrecision) })
}

// dropChecks is checks without those named names.
func dropChecks(checks []Check, names ...string) []Check {
	return slices.DeleteFunc(slices.Clone(checks), func(k Check) bool { return slices.Contains(names, k.Name) })
}

// MergeChecks is the checks of a cell merged from ranks that measured it
// as a and b: of each check, a failed one if either failed (the first),
// else a's. A merged cell is no more trusted than its worst rank, and a
// rank's statistic is its own sample's, so none is averaged.
func MergeChecks(a, b []Check) []Check {
	out := slices.Clone(a)
	for _, k := range b {
		i := slices.IndexFunc(out, func(o Check) bool { return o.Name == k.Name && o.Method == k.Method })
		switch {
		case i < 0:
			out = append(out, k)
		case out[i].Pass && !k.Pass:
			out[i] = k
		}
	}
	slices.SortStableFunc(out, func(x, y Check) int { return strings.Compare(x.Name, y.Name) })
	return out
}
