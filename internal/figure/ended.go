package figure

import (
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/units"
)

// Ended is what ended a cell's phases (results.PhaseEnd: measure_end,
// and warmup_end beside it), shown where a phase had until: its length
// was then the harness's choice, not the file's.
var Ended = Figure{
	Name:  "measure_end",
	Unit:  "reason",
	Has:   hasUntil,
	Merge: Merge{New: func() Merger { return &endAcc{} }},
	Report: Report{
		Columns: []Column{{Head: "ended", Summary: "ended", Text: func(c results.Cell, _ func(float64) string) string {
			return endedText(c)
		}}},
		CSV: []CSVColumn{
			{"warmup_end", func(c results.Cell) string { return endReason(c.WarmupEnd) }},
			{"measure_end", func(c results.Cell) string { return endReason(c.MeasureEnd) }},
		},
		Note: func(cells []results.Cell) string {
			for _, c := range cells {
				if hasUntil(c) {
					return "ended: what ended each phase with until, [warmup/]measure: precision or stable when the condition held, max_duration or max_ops at the cap"
				}
			}
			return ""
		},
		JSON: func(c results.Cell) any {
			return map[string]*results.PhaseEnd{"warmup": c.WarmupEnd, "measure": c.MeasureEnd}
		},
	},
}

// hasUntil: the cell has its measure phase's end and some phase of it
// had until.
func hasUntil(c results.Cell) bool {
	return c.MeasureEnd != nil && (c.MeasureEnd.Until || (c.WarmupEnd != nil && c.WarmupEnd.Until))
}

// endedText is "stable 8.0s/precision 1.0s": the warmup's end, when it
// had until, then the measure phase's.
func endedText(c results.Cell) string {
	s := short(c.MeasureEnd)
	if w := c.WarmupEnd; w != nil && w.Until {
		s = short(w) + "/" + s
	}
	return s
}

func short(e *results.PhaseEnd) string {
	if e == nil {
		return "-"
	}
	return e.Reason + " " + units.Duration(float64(e.DurationNs))
}

func endReason(e *results.PhaseEnd) string {
	if e == nil {
		return ""
	}
	return e.Reason
}

// endAcc merges the ranks' ends of a cell's phases: each rank ended its
// own, so the merged cell keeps, per phase, a rank's that hit its cap if
// one did, else the longest.
type endAcc struct{ warmup, measure *results.PhaseEnd }

func (a *endAcc) Add(_ *results.Run, c results.Cell) error {
	a.warmup, a.measure = laterEnd(a.warmup, c.WarmupEnd), laterEnd(a.measure, c.MeasureEnd)
	return nil
}

func (a *endAcc) Put(c *results.Cell, _ Job) ([]string, error) {
	c.WarmupEnd, c.MeasureEnd = a.warmup, a.measure
	return nil, nil
}

func laterEnd(have, e *results.PhaseEnd) *results.PhaseEnd {
	switch {
	case e == nil:
		return have
	case have == nil || (e.Capped() && !have.Capped()):
		return e
	case have.Capped() && !e.Capped():
		return have
	case e.DurationNs > have.DurationNs:
		return e
	}
	return have
}
