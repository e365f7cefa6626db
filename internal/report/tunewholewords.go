package report

import (
	"fmt"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
)

// This file puts a tune on a distribution of sizes in words: how each
// load's candidate was chosen, or that none met the latency goal, and
// what single sizes would have predicted.

// workloadExplanation says how l's candidate was chosen, or that none
// met the goal, and what the single sizes would have predicted.
func (t *tuneReport) workloadExplanation(l *tune.LoadResult) []string {
	w, c := l.Workload, &t.r.Config
	var out []string
	if w.Unmet {
		out = append(out, fmt.Sprintf("no candidate threshold meets %s over all ops at any rate searched, so none is chosen at %s: loosen the goal or lower the load (tune.json keeps each search's steps)",
			c.SLO, l.Load))
	} else {
		out = append(out, t.choice(w))
	}
	if c.KeySize > 0 && !w.Unmet {
		out = append(out, keyNote(c.KeySize, w.Chosen))
	}
	if n := goalUnmet(w); len(n) > 0 && c.SLO != nil && !w.Unmet {
		out = append(out, fmt.Sprintf("%s met %s at no rate searched and cannot be chosen: %s", units.Plural(len(n), "candidate"), c.SLO, units.Sizes(n)))
	}
	out = append(out, t.adaptiveVerdicts(w)...)
	if w.Refusal != "" {
		out = append(out, "the target refused a candidate threshold "+w.Refusal)
	}
	if len(c.Sizes) > 0 {
		out = append(out, t.prediction(l))
	}
	return out
}

// choice says why w's chosen candidate was chosen: it beat every other,
// or the others it did not beat need more memory. Capacities searched too
// few times for a sign test are told apart by the margin.
func (t *tuneReport) choice(w *tune.WorkloadResult) string {
	chosen, best := w.Candidate(w.Chosen), w.Candidate(w.Best)
	name := t.r.Config.ObjectiveName()
	head := fmt.Sprintf("chosen eager threshold: %s (%d bytes)", units.Bytes(int64(w.Chosen)), w.Chosen)
	beats, tiedWith, noDifference := "significantly better by "+name+" than", "show no significant difference from", "no significant difference from"
	rounds := fmt.Sprintf(", won %d of %d rounds, p=%.3f", best.Wins, best.Wins+best.Losses, best.P)
	if m := t.j.Margin; m > 0 {
		within := fmt.Sprintf("within %.0f%% of", 100*m)
		beats, tiedWith, noDifference, rounds = fmt.Sprintf("ahead by more than %.0f%% in %s of", 100*m, name), "are "+within, within, ""
	}
	switch {
	case chosen == best && tied(w) == 0:
		return fmt.Sprintf("%s, %s every other candidate measured (%s %s)", head, beats, name, t.format(chosen.Value))
	case chosen == best:
		return fmt.Sprintf("%s, the best median %s (%s); %s %s it, and it needs the least receive memory among them",
			head, name, t.format(chosen.Value), units.Plural(tied(w), "other candidate"), tiedWith)
	}
	return fmt.Sprintf("%s: %s the best median, %s (%s %s against %s%s), and it needs less receive memory (%s against %s)",
		head, noDifference, units.Bytes(int64(w.Best)), name, t.format(chosen.Value), t.format(best.Value), rounds,
		memoryTotal(chosen), memoryTotal(best))
}

// goalUnmet are the thresholds of w's measured candidates, other than
// the chosen, without a positive figure: under a latency goal, those
// that met it at no rate.
func goalUnmet(w *tune.WorkloadResult) []int {
	var out []int
	for _, c := range w.Candidates {
		if c.Status == tune.Measured && c.Versus != tune.VsChosen && c.Value <= 0 {
			out = append(out, c.Threshold)
		}
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
	whole := "the whole workload chooses " + units.Bytes(int64(w.Chosen))
	if w.Unmet {
		whole = "the whole workload meets the goal at no candidate"
	}
	if w.Predicted == 0 {
		return fmt.Sprintf("single sizes predict no threshold (no crossover among the %d sizes measured one by one, %s); %s",
			len(t.r.Config.Sizes), units.Sizes(t.r.Config.Sizes), whole)
	}
	line := fmt.Sprintf("single sizes predict threshold %s; %s", units.Bytes(int64(w.Predicted)), whole)
	p, chosen := w.Candidate(w.Predicted), w.ChosenCandidate()
	switch {
	case chosen == nil:
		return line
	case w.Predicted == w.Chosen:
		return line + ": the prediction holds"
	case p == nil || p.Status != tune.Measured:
		return line + fmt.Sprintf(" (%s was not measured whole: not a measured candidate)", units.Bytes(int64(w.Predicted)))
	}
	return line + fmt.Sprintf(": the workload's %s at %s is %s against %s at %s (%s)",
		t.r.Config.ObjectiveName(), units.Bytes(int64(w.Predicted)), t.format(p.Value), t.format(chosen.Value),
		units.Bytes(int64(w.Chosen)), p.Versus)
}
