package report

import (
	"fmt"
	"strings"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
)

// This file renders a tune on a distribution of sizes: the candidate
// thresholds measured as whole-workload runs, and the choice in words.

// writeWorkload prints w's candidates at l as a table.
func (t *tuneReport) writeWorkload(b *strings.Builder, l *tune.LoadResult) {
	spec := t.r.Config.Workload
	fmt.Fprintf(b, "workload (%s): eager threshold %s chosen by %s over all ops\n",
		spec.Distribution, units.Bytes(int64(l.Workload.Chosen)), t.r.Config.ObjectiveName())
	rows := [][]string{{"threshold", "receive memory", "p50", "p99", "ops/s", "cpu/op", "vs chosen"}}
	for _, c := range l.Workload.Candidates {
		rows = append(rows, t.candidateRow(&c))
	}
	writeGrid(b, rows, 2)
	b.WriteString("\n")
}

// candidateRow is c's row: its figures, or why it has none.
func (t *tuneReport) candidateRow(c *tune.Candidate) []string {
	row := []string{units.Bytes(int64(c.Threshold)), memoryCell(c)}
	switch c.Status {
	case tune.RuledOut:
		return append(row, "ruled out", "-", "-", "-", "above --max-memory "+units.Bytes(t.r.Config.Workload.MaxMemory))
	case tune.Refused:
		return append(row, "refused", "-", "-", "-", "the target refused it")
	}
	cpu := "-"
	if c.CPU > 0 {
		cpu = units.Duration(c.CPU)
	}
	return append(row, units.Duration(c.P50), units.Duration(c.P99), units.Rate(c.OpsPerSec), cpu, versusCell(c))
}

// memoryCell is "1.2MiB + 64KiB" (server + client), "?" when unknown.
func memoryCell(c *tune.Candidate) string {
	if !c.MemoryKnown {
		return "?"
	}
	return units.Bytes(c.ServerMemory) + " + " + units.Bytes(c.ClientMemory)
}

// versusCell is "chosen", or the outcome against the chosen candidate
// with the rounds it won and the sign test's p.
func versusCell(c *tune.Candidate) string {
	if c.Versus == tune.VsChosen {
		return "chosen"
	}
	return fmt.Sprintf("%s, won %d of %d, p=%.3f", c.Versus, c.Wins, c.Wins+c.Losses, c.P)
}

// writeWorkloadLegend explains the candidates' columns once.
func (t *tuneReport) writeWorkloadLegend(b *strings.Builder) {
	c := &t.r.Config
	fmt.Fprintf(b, "candidates: the whole workload (its mix of ops, its sizes drawn from %s) at each eager threshold,\n", c.Workload.Distribution)
	fmt.Fprintf(b, "every candidate once a round, the order rotated each round; medians of %d rounds, all ops merged.\n", c.Repeats)
	b.WriteString("receive memory: registered receive buffers, the server's + the clients', at the load (\"?\": unknown, no verbs in this build).\n")
	fmt.Fprintf(b, "cpu/op: %s CPU time per operation (the whole process's when the server runs inside kvbench).\n", t.j.Side)
	fmt.Fprintf(b, "vs chosen: rounds in which the candidate's %s beat the chosen one's, sign test p; significant when p <= %g.\n",
		c.ObjectiveName(), t.j.Alpha)
}

// workloadExplanation says how l's candidate was chosen, and what the
// single sizes would have predicted.
func (t *tuneReport) workloadExplanation(l *tune.LoadResult) []string {
	w, c := l.Workload, &t.r.Config
	chosen, best := w.Candidate(w.Chosen), w.Candidate(w.Best)
	name := c.ObjectiveName()
	var out []string
	switch {
	case chosen == best && tied(w) == 0:
		out = append(out, fmt.Sprintf("chosen eager threshold: %s (%d bytes), significantly better by %s than every other candidate measured (%s %s)",
			units.Bytes(int64(w.Chosen)), w.Chosen, name, name, t.format(chosen.Value)))
	case chosen == best:
		out = append(out, fmt.Sprintf("chosen eager threshold: %s (%d bytes), the best median %s (%s); %s show no significant difference from it, and it needs the least receive memory among them",
			units.Bytes(int64(w.Chosen)), w.Chosen, name, t.format(chosen.Value), units.Plural(tied(w), "other candidate")))
	default:
		out = append(out, fmt.Sprintf("chosen eager threshold: %s (%d bytes): no significant difference from the best median, %s (%s %s against %s, won %d of %d rounds, p=%.3f), and it needs less receive memory (%s against %s)",
			units.Bytes(int64(w.Chosen)), w.Chosen, units.Bytes(int64(w.Best)), name, t.format(chosen.Value), t.format(best.Value),
			best.Wins, best.Wins+best.Losses, best.P, memoryTotal(chosen), memoryTotal(best)))
	}
	if c.KeySize > 0 {
		out = append(out, keyNote(c.KeySize, w.Chosen))
	}
	if w.Refusal != "" {
		out = append(out, "the target refused a candidate threshold "+w.Refusal)
	}
	if len(c.Sizes) > 0 {
		out = append(out, t.prediction(l))
	}
	return out
}

// tied counts the measured candidates other than the chosen with no
// significant difference from it.
func tied(w *tune.WorkloadResult) int {
	n := 0
	for _, c := range w.Candidates {
		if c.Versus == tune.VsTie {
			n++
		}
	}
	return n
}

// memoryTotal is c's receive memory, "unknown" when not computed.
func memoryTotal(c *tune.Candidate) string {
	if !c.MemoryKnown {
		return "unknown"
	}
	return units.Bytes(c.Memory())
}

// prediction compares what the single sizes predict with the whole
// workload's choice.
func (t *tuneReport) prediction(l *tune.LoadResult) string {
	w := l.Workload
	if w.Predicted == 0 {
		return fmt.Sprintf("single sizes predict no threshold (no crossover among the %d sizes measured one by one, %s); the whole workload chooses %s",
			len(t.r.Config.Sizes), units.Sizes(t.r.Config.Sizes), units.Bytes(int64(w.Chosen)))
	}
	line := fmt.Sprintf("single sizes predict threshold %s; the whole workload chooses %s",
		units.Bytes(int64(w.Predicted)), units.Bytes(int64(w.Chosen)))
	p, chosen := w.Candidate(w.Predicted), w.Candidate(w.Chosen)
	switch {
	case w.Predicted == w.Chosen:
		return line + ": the prediction holds"
	case p == nil || p.Status != tune.Measured:
		return line + fmt.Sprintf(" (%s was not measured whole: not a measured candidate)", units.Bytes(int64(w.Predicted)))
	}
	return line + fmt.Sprintf(": the workload's %s at %s is %s against %s at %s (%s)",
		t.r.Config.ObjectiveName(), units.Bytes(int64(w.Predicted)), t.format(p.Value), t.format(chosen.Value),
		units.Bytes(int64(w.Chosen)), p.Versus)
}
