package results

import (
	"fmt"
	"strconv"

	"github.com/kvbench/kvbench/internal/units"
)

// What ended a phase (PhaseEnd.Reason). A phase without until ends at
// EndDuration or EndOps; one with until at EndPrecision (measure) or
// EndStable (warmup) when its condition held, else at a cap; any phase
// may end EndInterrupted.
const (
	EndDuration    = "duration"
	EndOps         = "ops"
	EndPrecision   = "precision"
	EndStable      = "stable"
	EndMaxDuration = "max_duration"
	EndMaxOps      = "max_ops"
)

// PhaseEnd says what ended one of a cell's phases.
type PhaseEnd struct {
	Reason     string `json:"reason"`
	DurationNs int64  `json:"duration_ns"`
	// Until is whether the phase had an until: a cap then means its
	// condition was not met.
	Until bool `json:"until,omitempty"`
	// CIHalfWidth (a measure phase with until) is the widest half-width of
	// the asked quantiles' 95% intervals when the phase ended, as a
	// fraction of the estimate, over the cell's histograms of the phase.
	CIHalfWidth float64 `json:"ci_half_width,omitempty"`
}

// Capped reports whether the phase had an until and ended at a cap.
func (e *PhaseEnd) Capped() bool {
	return e != nil && e.Until && (e.Reason == EndMaxDuration || e.Reason == EndMaxOps)
}

// String is the end on one line: "precision after 3s (CI ±4.1%)".
func (e *PhaseEnd) String() string {
	if e == nil {
		return ""
	}
	s := e.Reason + " after " + units.Duration(float64(e.DurationNs))
	if e.CIHalfWidth > 0 {
		s += " (CI ±" + strconv.FormatFloat(100*e.CIHalfWidth, 'f', 1, 64) + "%)"
	}
	return s
}

// UntilNotMet warns of a cell whose warmup or measure phase had an until
// and ended at its cap instead.
func UntilNotMet(c Cell) (Warning, bool) {
	for _, ph := range []struct {
		name string
		e    *PhaseEnd
	}{{"warmup", c.WarmupEnd}, {"measure", c.MeasureEnd}} {
		if ph.e.Capped() {
			return Warning{Kind: WarnUntilNotMet, Message: fmt.Sprintf(
				"until not met: the %s phase ended at its %s, %s", ph.name, ph.e.Reason, ph.e)}, true
		}
	}
	return Warning{}, false
}
