package report

import (
	"fmt"
	"strings"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
)

// This file renders the adaptive policy measured on fixed sizes: per op,
// a table of the policy at each size against the protocol the load's
// threshold and the profile give the size, and against the size's
// winner; per load, how far it falls behind the best fixed threshold at
// worst, and whether its exploring costs more than tune.ExploreTolerance
// where a protocol won.

// writeSizeAdaptive prints o's adaptive table, when the policy was
// measured.
func (t *tuneReport) writeSizeAdaptive(b *strings.Builder, o *tune.OpResult) {
	title, rows, left := t.sizeAdaptiveRows(o)
	if rows == nil {
		return
	}
	b.WriteString(title + "\n")
	writeGrid(b, rows, left)
	b.WriteString("\n")
}

// sizeAdaptiveRows are o's adaptive table under its title, the header
// first, and how many of its columns are words; no rows when the policy
// was not measured.
func (t *tuneReport) sizeAdaptiveRows(o *tune.OpResult) (title string, rows [][]string, left int) {
	if len(o.Points) == 0 || o.Points[0].Adaptive == nil {
		return "", nil, 0
	}
	chosen, profile := comparedThresholds(o)
	title = fmt.Sprintf("%s: adaptive by %s", o.Op, t.r.Config.ObjectiveName())
	head := []string{"size", "adaptive"}
	if chosen > 0 {
		title += " against the threshold " + units.Bytes(int64(chosen))
		head = append(head, "threshold "+units.Bytes(int64(chosen)), "vs threshold")
	}
	if profile >= 0 {
		title += ", and the profile's " + units.Bytes(int64(profile))
		head = append(head, "profile "+units.Bytes(int64(profile)), "vs profile")
	}
	rows = [][]string{append(head, "winner", "cost of exploring")}
	for _, p := range o.Points {
		row := []string{units.Bytes(int64(p.Size)), t.policyCell(p.Adaptive)}
		if chosen > 0 {
			row = append(row, t.fixedCells(p.Adaptive, p.Adaptive.VsChosen)...)
		}
		if profile >= 0 {
			row = append(row, t.fixedCells(p.Adaptive, p.Adaptive.VsProfile)...)
		}
		rows = append(rows, append(row, t.winnerCell(p.Adaptive), t.exploreCell(p.Adaptive)))
	}
	return title, rows, len(head) + 2
}

// comparedThresholds are the threshold and the profile's threshold o's
// sizes were compared with: 0 for no threshold, -1 for no profile or
// one that gives o the threshold's own.
func comparedThresholds(o *tune.OpResult) (chosen, profile int) {
	profile = -1
	for _, p := range o.Points {
		if a := p.Adaptive; a != nil && a.VsChosen != nil {
			chosen = a.VsChosen.Threshold
		}
		if a := p.Adaptive; a != nil && a.VsProfile != nil {
			profile = a.VsProfile.Threshold
		}
	}
	if profile == chosen {
		profile = -1
	}
	return chosen, profile
}

// policyCell is the policy's figure at a size, or why it has none.
func (t *tuneReport) policyCell(a *tune.Adaptive) string {
	if a.Status != tune.Measured {
		return "refused"
	}
	return t.adaptiveFigure(a.Value)
}

// fixedCells are the protocol a fixed choice gives a size with its
// figure ("eager 1.1µs"), and the policy against it: "1.02x, no
// significant difference, won 2 of 5, p=0.500" (by a margin, without
// the rounds).
func (t *tuneReport) fixedCells(a *tune.Adaptive, v *tune.Comparison) []string {
	if v == nil {
		return []string{"-", "-"}
	}
	fixed := protocolName(v.Protocol) + " " + t.adaptiveFigure(v.Value)
	switch {
	case t.r.Objective == tune.ObjCapacity && a.Value <= 0:
		return []string{fixed, "goal unmet"}
	case t.j.Margin > 0:
		return []string{fixed, t.recordCell(v.Record, v.Ratio)}
	}
	return []string{fixed, fmt.Sprintf("%.2fx, %s", v.Ratio, t.recordCell(v.Record, v.Ratio))}
}

// protocolName is a protocol as the tables abbreviate it.
func protocolName(p string) string {
	if p == tune.Rendezvous.String() {
		return "rdv"
	}
	return p
}

// winnerCell is the size's winner with its figure, "eager 2.03µs", or
// "-" when no protocol won.
func (t *tuneReport) winnerCell(a *tune.Adaptive) string {
	if v := a.VsWinner; v != nil {
		return protocolName(v.Protocol) + " " + t.adaptiveFigure(v.Value)
	}
	return "-"
}

// exploreCell is the policy against the size's winner: "0.4% worse,
// within 2%", "2.2% worse, over 2%"; "-" when no protocol won.
func (t *tuneReport) exploreCell(a *tune.Adaptive) string {
	v := a.VsWinner
	if v == nil {
		return "-"
	}
	short := v.Shortfall(t.r.Objective)
	within := "within"
	if short > tune.ExploreTolerance {
		within = "over"
	}
	return fmt.Sprintf("%s, %s %.0f%%", shortfallWords(short), within, 100*tune.ExploreTolerance)
}

// shortfallWords is a shortfall as "2.2% worse" or "1.0% better".
func shortfallWords(short float64) string {
	if short < 0 {
		return fmt.Sprintf("%.1f%% better", -100*short)
	}
	return fmt.Sprintf("%.1f%% worse", 100*short)
}

// writeSizeAdaptiveLegend says what the adaptive tables show, once.
func (t *tuneReport) writeSizeAdaptiveLegend(b *strings.Builder) {
	if !t.r.Config.Adaptive {
		return
	}
	fmt.Fprintf(b, "adaptive: rdmakv.WithAdaptiveThreshold with its defaults at each size, one more entry in each round's rotation\n"+
		"beside eager and rendezvous; threshold and profile: the protocol the load's recommended threshold and the profile's\n"+
		"threshold for the op give the size, with its figure; vs: the policy's figure over it, the rounds the policy won, sign test p;\n"+
		"cost of exploring: the policy against the size's winner, where one won, expected within %.0f%%.\n", 100*tune.ExploreTolerance)
}

// sizeAdaptiveSummary says, at l, how far the policy falls behind the
// best fixed threshold at worst, and where its exploring costs more
// than tune.ExploreTolerance against a size's winner; none when the
// policy was not measured.
func (t *tuneReport) sizeAdaptiveSummary(l *tune.LoadResult) []string {
	if !t.r.Config.Adaptive {
		return nil
	}
	obj := t.r.Objective
	var worst *tune.Comparison
	var at string
	won, over := 0, []string{}
	for _, o := range l.Ops {
		for _, p := range o.Points {
			a, where := p.Adaptive, fmt.Sprintf("%s %s", units.Bytes(int64(p.Size)), o.Op)
			if v := a.VsChosen; v != nil && (worst == nil || v.Shortfall(obj) > worst.Shortfall(obj)) {
				worst, at = v, where
			}
			if v := a.VsWinner; v != nil {
				won++
				if v.Shortfall(obj) > tune.ExploreTolerance {
					over = append(over, fmt.Sprintf("%s (%s)", where, shortfallWords(v.Shortfall(obj))))
				}
			}
		}
	}
	return []string{t.worstLine(worst, at), exploreLine(won, over)}
}

// worstLine is "adaptive within 2.6% of the best fixed threshold at every
// size; worst 1.03x at 64KiB get".
func (t *tuneReport) worstLine(worst *tune.Comparison, at string) string {
	if worst == nil {
		return "adaptive: no threshold recommended at this load to compare it with"
	}
	how := fmt.Sprintf("within %.1f%% of", 100*worst.Shortfall(t.r.Objective))
	if worst.Shortfall(t.r.Objective) <= 0 {
		how = "as good as or better than"
	}
	return fmt.Sprintf("adaptive %s the best fixed threshold at every size; worst %.2fx at %s", how, worst.Ratio, at)
}

// exploreLine is "cost of exploring: adaptive within 2% of the winner at
// 5 of 6 sizes a protocol won; over at 64KiB get (2.2% worse)".
func exploreLine(won int, over []string) string {
	if won == 0 {
		return "cost of exploring: no protocol won a size clearly, so it is not checked"
	}
	line := fmt.Sprintf("cost of exploring: adaptive within %.0f%% of the winner at %d of %s a protocol won",
		100*tune.ExploreTolerance, won-len(over), units.Plural(won, "size"))
	if len(over) > 0 {
		line += "; over at " + strings.Join(over, ", ")
	}
	return line
}
