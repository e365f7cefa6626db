package report

import (
	"fmt"
	"strings"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
)

// This file renders a tune on a distribution of sizes: the candidate
// thresholds measured as whole-workload runs, as a table with its legend
// (tunewholewords.go says how the choice was made).

// writeWorkload prints w's candidates at l as a table.
func (t *tuneReport) writeWorkload(b *strings.Builder, l *tune.LoadResult) {
	title, rows := t.workloadRows(l)
	b.WriteString(title + "\n")
	writeGrid(b, rows, 2)
	b.WriteString("\n")
}

// workloadRows are l's candidates as a table under its title, the header
// first.
func (t *tuneReport) workloadRows(l *tune.LoadResult) (title string, rows [][]string) {
	w, spec := l.Workload, t.r.Config.Workload
	chosen := "eager threshold " + units.Bytes(int64(w.Chosen)) + " chosen"
	if w.Unmet {
		chosen = "no eager threshold chosen"
	}
	title = fmt.Sprintf("workload (%s): %s by %s over all ops", spec.Distribution, chosen, t.r.Config.ObjectiveName())
	rows = [][]string{append(append([]string{"threshold", "receive memory"}, t.figureHeads()...), "vs chosen")}
	for _, c := range w.Candidates {
		rows = append(rows, t.candidateRow(c.Name(), &c, t.versusCell(&c, w.ChosenCandidate())))
	}
	if a := w.Adaptive; a != nil {
		rows = append(rows, t.candidateRow(tune.AdaptiveName+" (not a candidate)", &a.Candidate, t.adaptiveCell(a)))
	}
	return title, rows
}

// figureHeads name the candidates' figures: the capacity under a latency
// goal, else the medians.
func (t *tuneReport) figureHeads() []string {
	if t.r.Objective == tune.ObjCapacity {
		return []string{"capacity"}
	}
	return []string{"p50", "p99", "ops/s", "cpu/op"}
}

// candidateRow is c's row, named name: its figures, or why it has none,
// and vs, how it compares with the chosen candidate.
func (t *tuneReport) candidateRow(name string, c *tune.Candidate, vs string) []string {
	row := []string{name, memoryCell(c)}
	unmeasured := func(status, why string) []string {
		row = append(row, status)
		for range len(t.figureHeads()) - 1 {
			row = append(row, "-")
		}
		return append(row, why)
	}
	switch c.Status {
	case tune.RuledOut:
		return unmeasured("ruled out", "above --max-memory "+units.Bytes(t.r.Config.Workload.MaxMemory))
	case tune.Refused:
		return unmeasured("refused", "the target refused it")
	}
	return append(append(row, t.candidateFigures(c)...), vs)
}

// candidateFigures are c's figures under figureHeads.
func (t *tuneReport) candidateFigures(c *tune.Candidate) []string {
	if t.r.Objective == tune.ObjCapacity {
		if c.Capacity <= 0 {
			return []string{"none, goal unmet"}
		}
		return []string{t.format(c.Capacity)}
	}
	cpu := "-"
	if c.CPU > 0 {
		cpu = units.Duration(c.CPU)
	}
	return []string{units.Duration(c.P50), units.Duration(c.P99), units.Rate(c.OpsPerSec), cpu}
}

// memoryCell is "1.2MiB + 64KiB" (server + client), "?" when unknown.
func memoryCell(c *tune.Candidate) string {
	if !c.MemoryKnown {
		return "?"
	}
	return units.Bytes(c.ServerMemory) + " + " + units.Bytes(c.ClientMemory)
}

// versusCell is "chosen", or the outcome against the chosen candidate:
// with the rounds it won and the sign test's p, or by a margin with its
// figure as a multiple of the chosen one's; "-" when none was chosen.
// A candidate that met a latency goal at no rate is not compared.
func (t *tuneReport) versusCell(c, chosen *tune.Candidate) string {
	switch {
	case c.Versus == tune.VsChosen:
		return "chosen"
	case chosen == nil || c.Versus == "":
		return "-"
	case t.r.Objective == tune.ObjCapacity && c.Value <= 0:
		return "cannot be chosen"
	}
	return t.recordCell(c.Record, c.Value/chosen.Value)
}

// recordCell is r in the vs chosen column: with the rounds won and the
// sign test's p, or by a margin with ratio, the figure as a multiple of
// the chosen one's.
func (t *tuneReport) recordCell(r tune.Record, ratio float64) string {
	if t.j.Margin > 0 {
		return fmt.Sprintf("%s, %.2fx", r.Versus, ratio)
	}
	return fmt.Sprintf("%s, won %d of %d, p=%.3f", r.Versus, r.Wins, r.Wins+r.Losses, r.P)
}

// writeWorkloadLegend explains the candidates' columns once.
func (t *tuneReport) writeWorkloadLegend(b *strings.Builder) {
	c := &t.r.Config
	fmt.Fprintf(b, "candidates: the whole workload (its mix of ops, its sizes drawn from %s) at each eager threshold,\n", c.Workload.Distribution)
	if c.SLO == nil {
		fmt.Fprintf(b, "every candidate once a round, the order rotated each round; medians of %d rounds, all ops merged.\n", c.Repeats)
	} else {
		fmt.Fprintf(b, "a capacity search each a round, the searches a step each in turn, the order rotated each round;\nmedians of %s, all ops merged.\n", units.Plural(c.Repeats, "round"))
		t.writeCapacityLegend(b)
	}
	b.WriteString("receive memory: registered receive buffers, the server's + the clients', at the load (\"?\": unknown, no verbs in this build).\n")
	t.writeAdaptiveLegend(b)
	switch {
	case c.SLO == nil:
		fmt.Fprintf(b, "cpu/op: %s CPU time per operation (the whole process's when the server runs inside kvbench).\n", t.j.Side)
	case t.j.Margin > 0:
		fmt.Fprintf(b, "vs chosen: the candidate's capacity as a multiple of the chosen one's; too few searches for a sign test:\nwithin %.0f%% is no significant difference. A candidate meeting the goal at no rate cannot be chosen.\n", 100*t.j.Margin)
		return
	}
	fmt.Fprintf(b, "vs chosen: rounds in which the candidate's %s beat the chosen one's, sign test p; significant when p <= %g.\n",
		c.ObjectiveName(), t.j.Alpha)
}
