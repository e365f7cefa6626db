package report

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// This file renders the adaptive policy measured beside a distribution's
// candidates: its row in their table, its legend, and the lines saying
// how it compares with the chosen threshold and with the default.

// adaptiveCell is a's vs chosen column: "-" when there is no chosen
// candidate to compare with or a was not measured.
func (t *tuneReport) adaptiveCell(a *tune.Adaptive) string {
	v := a.VsChosen
	switch {
	case v == nil:
		return "-"
	case t.r.Objective == tune.ObjCapacity && a.Value <= 0:
		return "goal unmet"
	}
	return t.recordCell(v.Record, v.Ratio)
}

// writeAdaptiveLegend says what the adaptive row is, when there is one.
func (t *tuneReport) writeAdaptiveLegend(b *strings.Builder) {
	w := t.r.Config.Workload
	if !w.Adaptive {
		return
	}
	settings := "its defaults"
	if w.AdaptiveSettings != "" {
		settings = "the workload's " + w.AdaptiveSettings
	}
	fmt.Fprintf(b, "adaptive: rdmakv.WithAdaptiveThreshold with %s, once a round in the rotation beside the candidates;\na comparison, never chosen; its receive memory is that of the largest threshold it may choose, %s.\n",
		settings, units.Bytes(int64(cmp.Or(w.AdaptiveMaxThreshold, rdmakv.DefaultMaxEager))))
}

// adaptiveVerdicts say how w's adaptive policy compares with the chosen
// threshold and with the default, a line each (one when the default was
// chosen); none when it was not compared.
func (t *tuneReport) adaptiveVerdicts(w *tune.WorkloadResult) []string {
	a := w.Adaptive
	switch {
	case a == nil:
		return nil
	case a.Status != tune.Measured:
		return []string{"adaptive: the target refused it, so it is not compared"}
	case a.VsChosen == nil && a.VsDefault == nil:
		return []string{fmt.Sprintf("adaptive: %s %s; no candidate was chosen to compare it with", t.adaptiveName(), t.adaptiveFigure(a.Value))}
	}
	var out []string
	if v := a.VsChosen; v != nil {
		at := "the chosen " + units.Bytes(int64(v.Threshold))
		if v.Threshold == tune.DefaultThreshold {
			at += ", the default"
		}
		out = append(out, t.against(a, v, at))
	}
	if v := a.VsDefault; v != nil && (a.VsChosen == nil || v.Threshold != a.VsChosen.Threshold) {
		out = append(out, t.against(a, v, "the default "+units.Bytes(int64(v.Threshold))))
	}
	if l := adaptiveVsBest(w); l != "" {
		out = append(out, l)
	}
	return out
}

// bestFigures are the medians adaptiveVsBest sets beside the best
// candidate's, each by its own best.
var bestFigures = []struct {
	name  string
	value func(tune.Candidate) float64
	most  bool
}{
	{"p50", func(c tune.Candidate) float64 { return c.P50 }, false},
	{"p99", func(c tune.Candidate) float64 { return c.P99 }, false},
	{"ops/s", func(c tune.Candidate) float64 { return c.OpsPerSec }, true},
}

// adaptiveVsBest is the adaptive policy's median p50, p99 and ops/s
// over the best measured candidate's by each: "adaptive against the best
// fixed threshold by each figure: p50 1.03x (64KiB), p99 0.98x (16KiB),
// ops/s 0.97x (64KiB)". Ratios of medians, without a test: the figures
// the objective did not decide are only summarised. "" when there is
// nothing to set it beside.
func adaptiveVsBest(w *tune.WorkloadResult) string {
	var parts []string
	for _, f := range bestFigures {
		best, at := 0.0, -1
		for _, c := range w.Candidates {
			v := f.value(c)
			if c.Status == tune.Measured && v > 0 && (at < 0 || f.most && v > best || !f.most && v < best) {
				best, at = v, c.Threshold
			}
		}
		if a := f.value(w.Adaptive.Candidate); at >= 0 && a > 0 {
			parts = append(parts, fmt.Sprintf("%s %.2fx (%s)", f.name, a/best, units.Bytes(int64(at))))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "adaptive against the best fixed threshold by each figure, medians: " + strings.Join(parts, ", ")
}

// against is a's line against v's threshold, named at: "adaptive: p50
// 5.1µs against 4.8µs at the chosen 4KiB (1.06x, won 1 of 5 rounds,
// p=0.188: no significant difference)"; by the margin, without rounds.
func (t *tuneReport) against(a *tune.Adaptive, v *tune.Comparison, at string) string {
	how := string(v.Versus)
	if t.j.Margin == 0 {
		how = fmt.Sprintf("won %d of %d rounds, p=%.3f: %s", v.Wins, v.Wins+v.Losses, v.P, v.Versus)
	}
	if v.Ratio > 0 {
		sep := ", "
		if t.j.Margin > 0 {
			sep = ": "
		}
		how = fmt.Sprintf("%.2fx%s%s", v.Ratio, sep, how)
	}
	return fmt.Sprintf("adaptive: %s %s against %s at %s (%s)", t.adaptiveName(), t.adaptiveFigure(a.Value), t.adaptiveFigure(v.Value), at, how)
}

// adaptiveName is the compared figure's name in the adaptive lines: the
// goal of a capacity is in the table's title.
func (t *tuneReport) adaptiveName() string {
	if t.r.Objective == tune.ObjCapacity {
		return "capacity"
	}
	return t.r.Config.ObjectiveName()
}

// adaptiveFigure is v as the adaptive lines print it: a capacity of 0 is
// a goal met at no rate.
func (t *tuneReport) adaptiveFigure(v float64) string {
	if t.r.Objective == tune.ObjCapacity && v <= 0 {
		return "none (goal unmet)"
	}
	return t.format(v)
}
