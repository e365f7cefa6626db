package tune

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kvbench/kvbench/internal/units"
)

var tableHeader = []string{"size range", "protocol", "eager p50", "rdv p50", "eager MiB/s", "rdv MiB/s", "ratio", "rdv wins", "p"}

// WriteTable prints, per op, tables in the manner of UCX's protocol info:
// first the value size ranges and the protocol the recommended threshold
// selects for each, then one row per measured size covering the sizes up
// to the next one, with the medians of both protocols, their ratio and the
// paired repeats rendezvous won. Sizes where eager could not be measured
// show n/a and are named in the explanation, which follows.
func (r *Result) WriteTable(w io.Writer) error {
	var b strings.Builder
	for _, o := range r.Ops {
		title := o.Op + ": " + o.Verdict
		if o.Found {
			title = fmt.Sprintf("%s: crossover at %s, eager threshold for %s alone %s", o.Op,
				units.Bytes(int64(o.Crossover)), o.Op, units.Bytes(int64(o.Threshold)))
		}
		b.WriteString(title + "\n")
		if r.Recommended > 0 {
			writeGrid(&b, r.protocolRanges(o.Op))
		}
		rows := [][]string{tableHeader}
		for i, p := range o.Points {
			rng := "[" + units.Bytes(int64(p.Size)) + ", "
			if i+1 < len(o.Points) {
				rng += units.Bytes(int64(o.Points[i+1].Size)) + ")"
			} else {
				rng += "inf)"
			}
			eagerP50, eagerRate, ratio, wins, pv := "n/a", "n/a", "-", "-", "-"
			if len(p.Eager) > 0 {
				eagerP50, eagerRate = units.Duration(p.EagerP50), units.MiB(p.EagerRate)
				ratio = fmt.Sprintf("%.2f", p.Ratio)
				wins = fmt.Sprintf("%d/%d", p.RdvWins, min(len(p.Eager), len(p.Rendezvous)))
				pv = fmt.Sprintf("%.3f", p.P)
			}
			rows = append(rows, []string{rng, r.protocolCell(p), eagerP50, units.Duration(p.RdvP50),
				eagerRate, units.MiB(p.RdvRate), ratio, wins, pv})
		}
		writeGrid(&b, rows)
		b.WriteString("\n")
	}
	b.WriteString(fmt.Sprintf("ratio = eager p50 / rendezvous p50 (above 1: rendezvous faster), medians of %d repeats.\n", r.Config.Repeats))
	b.WriteString("rdv wins: repeats in which rendezvous had the lower p50 of the back-to-back pair;\n")
	b.WriteString(fmt.Sprintf("p: sign test for the protocol that won more pairs; it wins the size when p <= %g, else a tie.\n", r.Config.alpha()))
	if r.Recommended > 0 {
		b.WriteString("protocol: what the recommended threshold selects; \"(tie)\" marks sizes within noise,\n\"!\" sizes where the other protocol measured significantly faster.\n")
	} else {
		b.WriteString("protocol: the measured winner (no threshold recommended).\n")
	}
	if slices.ContainsFunc(r.Ops, func(o OpResult) bool { return len(o.EagerUnmeasured) > 0 }) {
		b.WriteString("eager n/a: the target refused eager at that size, so only rendezvous was measured;\nnothing was compared there and it is not counted as a rendezvous win.\n")
	}
	b.WriteString("\n")
	for _, e := range r.Explanation {
		b.WriteString(e + "\n")
	}
	r.writeWarnings(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeWarnings lists the repetitions that may not be trusted, each with
// its op, size, protocol and repetition; nothing when none.
func (r *Result) writeWarnings(b *strings.Builder) {
	var lines []string
	add := func(op string, size int, p Protocol, samples []Sample) {
		for i, s := range samples {
			for _, w := range s.Warnings {
				lines = append(lines, fmt.Sprintf("  %s %s %s, repeat %d: %s", op, units.Bytes(int64(size)), p, i+1, w.Message))
			}
		}
	}
	for _, o := range r.Ops {
		for _, p := range o.Points {
			add(o.Op, p.Size, Eager, p.Eager)
			add(o.Op, p.Size, Rendezvous, p.Rendezvous)
		}
	}
	if len(lines) > 0 {
		b.WriteString("\nwarnings (measurements not to be trusted; docs/USAGE.md says what each means):\n")
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
}

// protocolRanges is the UCX-style summary: value byte ranges and the
// protocol the recommended threshold selects for each (the threshold
// counts key plus value bytes, eager below it).
func (r *Result) protocolRanges(op string) [][]string {
	head := []string{op, fmt.Sprintf("protocol at eager threshold %s, %d-byte keys",
		units.Bytes(int64(r.Recommended)), r.Config.KeySize)}
	// Largest value that still goes eager.
	lastEager := r.Recommended - r.Config.KeySize - 1
	if lastEager < 0 {
		return [][]string{head, {"0..inf", "rendezvous"}}
	}
	return [][]string{head,
		{fmt.Sprintf("0..%d", lastEager), "eager"},
		{fmt.Sprintf("%d..inf", lastEager+1), "rendezvous"}}
}

// protocolCell names the protocol used at p: under the recommended
// threshold when there is one, else the measured winner.
func (r *Result) protocolCell(p Point) string {
	switch {
	case len(p.Eager) == 0 && r.Recommended == 0:
		return "eager n/a"
	case len(p.Eager) == 0:
		return "rendezvous (eager n/a)"
	case r.Recommended == 0:
		return p.Winner
	}
	chosen := "eager"
	if p.Size+r.Config.KeySize >= r.Recommended {
		chosen = "rendezvous"
	}
	switch {
	case p.Winner == "tie":
		return chosen + " (tie)"
	case p.Winner != chosen:
		return chosen + " !"
	}
	return chosen
}

// writeGrid draws rows (the first is the header) as a +---+ bordered grid.
func writeGrid(b *strings.Builder, rows [][]string) {
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	rule := func() {
		for _, w := range widths {
			b.WriteString("+" + strings.Repeat("-", w+2))
		}
		b.WriteString("+\n")
	}
	rule()
	for i, row := range rows {
		for j, c := range row {
			pad := strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c))
			if j == 0 || j == 1 {
				b.WriteString("| " + c + pad + " ")
			} else {
				b.WriteString("| " + pad + c + " ")
			}
		}
		b.WriteString("|\n")
		if i == 0 {
			rule()
		}
	}
	rule()
}
