package tune

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// WriteTable prints, per load and op, tables in the manner of UCX's
// protocol info: first the value size ranges and the protocol the
// recommended threshold selects for each, then one row per measured size
// covering the sizes up to the next one, with the medians of both
// protocols, their ratio and the paired repeats rendezvous won. Sizes
// where eager could not be measured show n/a and are named in the
// explanation. With several loads the map of winners follows, then the
// explanation.
func (r *Result) WriteTable(w io.Writer) error {
	var b strings.Builder
	for _, l := range r.Loads {
		if len(r.Loads) > 1 {
			b.WriteString("== at " + l.Load.String() + " ==\n")
		}
		for _, o := range l.Ops {
			r.writeOp(&b, &l, &o)
		}
	}
	if len(r.Loads) > 1 {
		r.writeMaps(&b)
	}
	r.writeLegend(&b)
	b.WriteString("\n")
	for _, e := range r.Explanation {
		b.WriteString(e + "\n")
	}
	r.writeWarnings(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// header is the per-size table's header: the compared figure, and p50 and
// throughput beside it when the figure is something else.
func (r *Result) header() []string {
	name := string(r.Objective)
	switch r.Objective {
	case ObjCPU:
		name = r.Config.cpuSide() + " cpu/op"
	case ObjThroughput:
		name = "ops/s"
	}
	h := []string{"size range", "protocol", "eager " + name, "rdv " + name}
	if r.Objective != ObjP50 {
		h = append(h, "eager p50", "rdv p50")
	}
	return append(h, "eager MiB/s", "rdv MiB/s", "ratio", "rdv wins", "p")
}

// writeOp prints one op's tables at one load.
func (r *Result) writeOp(b *strings.Builder, l *LoadResult, o *OpResult) {
	title := o.Op.String() + ": " + o.Verdict
	if o.Found {
		title = fmt.Sprintf("%s: crossover at %s, eager threshold for %s alone %s", o.Op,
			units.Bytes(int64(o.Crossover)), o.Op, units.Bytes(int64(o.Threshold)))
	}
	b.WriteString(title + "\n")
	if l.Recommended > 0 {
		writeGrid(b, r.protocolRanges(o.Op, l.Recommended))
	}
	rows := [][]string{r.header()}
	for i, p := range o.Points {
		rng := "[" + units.Bytes(int64(p.Size)) + ", "
		if i+1 < len(o.Points) {
			rng += units.Bytes(int64(o.Points[i+1].Size)) + ")"
		} else {
			rng += "inf)"
		}
		rows = append(rows, append([]string{rng, r.protocolCell(p, l.Recommended)}, r.figures(p)...))
	}
	writeGrid(b, rows)
	for _, p := range o.Points {
		for _, f := range p.Flags {
			fmt.Fprintf(b, "! %s %s: %s\n", o.Op, units.Bytes(int64(p.Size)), f)
		}
	}
	b.WriteString("\n")
}

// figures are a point's cells after the protocol column.
func (r *Result) figures(p Point) []string {
	obj := r.Objective
	na := "n/a"
	eager, cells := []string{na}, []string{obj.format(p.RdvValue)}
	if len(p.Eager) > 0 {
		eager[0] = obj.format(p.EagerValue)
	}
	out := append(eager, cells...)
	if obj != ObjP50 {
		e := na
		if len(p.Eager) > 0 {
			e = units.Duration(p.EagerP50)
		}
		out = append(out, e, units.Duration(p.RdvP50))
	}
	eagerRate, ratio, wins, pv := na, "-", "-", "-"
	if len(p.Eager) > 0 {
		eagerRate = units.MiB(p.EagerRate)
		ratio = fmt.Sprintf("%.2f", p.Ratio)
		wins = fmt.Sprintf("%d/%d", p.RdvWins, min(len(p.Eager), len(p.Rendezvous)))
		if !p.ByMargin {
			pv = fmt.Sprintf("%.3f", p.P)
		}
	}
	return append(out, eagerRate, units.MiB(p.RdvRate), ratio, wins, pv)
}

// writeLegend explains the columns once.
func (r *Result) writeLegend(b *strings.Builder) {
	c := &r.Config
	name := c.objectiveName()
	ratio, lower := "eager "+name+" / rendezvous "+name, "lower"
	if r.Objective.higher() {
		ratio, lower = "rendezvous "+name+" / eager "+name, "higher"
	}
	fmt.Fprintf(b, "ratio = %s (above 1: rendezvous %s), medians of %d repeats.\n", ratio, c.judge().adj(), c.Repeats)
	if c.SLO != nil {
		fmt.Fprintf(b, "capacity: the highest open-loop rate whose %s, found by doubling or halving from the\nclosed-loop throughput, then bisecting to within %.0f%%.\n", c.SLO, 100*SearchTolerance)
	}
	fmt.Fprintf(b, "rdv wins: repeats in which rendezvous had the %s %s of the back-to-back pair;\n", lower, name)
	if c.judge().margin > 0 {
		fmt.Fprintf(b, "too few repeats for a sign test: a protocol wins a size when its capacity is more than %.0f%% higher.\n", 100*SLOMargin)
	} else {
		fmt.Fprintf(b, "p: sign test for the protocol that won more pairs; it wins the size when p <= %g, else a tie.\n", c.alpha())
	}
	if slices.ContainsFunc(r.Loads, func(l LoadResult) bool { return l.Recommended > 0 }) {
		b.WriteString("protocol: what the recommended threshold selects; \"(tie)\" marks sizes within noise,\n\"!\" sizes where the other protocol measured significantly better.\n")
	} else {
		b.WriteString("protocol: the measured winner (no threshold recommended).\n")
	}
	if r.anyUnmeasured() {
		b.WriteString("eager n/a: the target refused eager at that size, so only rendezvous was measured;\nnothing was compared there and it is not counted as a rendezvous win.\n")
	}
}

func (r *Result) anyUnmeasured() bool {
	for _, l := range r.Loads {
		if slices.ContainsFunc(l.Ops, func(o OpResult) bool { return len(o.EagerUnmeasured) > 0 }) {
			return true
		}
	}
	return false
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
	for _, l := range r.Loads {
		for _, o := range l.Ops {
			op := o.Op.String()
			if len(r.Loads) > 1 {
				op += " at " + l.Load.String()
			}
			for _, p := range o.Points {
				add(op, p.Size, Eager, p.Eager)
				add(op, p.Size, Rendezvous, p.Rendezvous)
			}
		}
	}
	if len(lines) > 0 {
		b.WriteString("\nwarnings (measurements not to be trusted; docs/USAGE.md says what each means):\n")
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
}

// protocolRanges is the UCX-style summary: value byte ranges and the
// protocol threshold selects for each (the threshold counts key plus
// value bytes, eager below it).
func (r *Result) protocolRanges(op rdmakv.Op, threshold int) [][]string {
	head := []string{op.String(), fmt.Sprintf("protocol at eager threshold %s, %d-byte keys",
		units.Bytes(int64(threshold)), r.Config.KeySize)}
	// Largest value that still goes eager.
	lastEager := threshold - r.Config.KeySize - 1
	if lastEager < 0 {
		return [][]string{head, {"0..inf", "rendezvous"}}
	}
	return [][]string{head,
		{fmt.Sprintf("0..%d", lastEager), "eager"},
		{fmt.Sprintf("%d..inf", lastEager+1), "rendezvous"}}
}

// protocolCell names the protocol used at p: under threshold when there
// is one, else the measured winner.
func (r *Result) protocolCell(p Point, threshold int) string {
	switch {
	case len(p.Eager) == 0 && threshold == 0:
		return "eager n/a"
	case len(p.Eager) == 0:
		return "rendezvous (eager n/a)"
	case threshold == 0:
		return p.Winner
	}
	chosen := "eager"
	if p.Size+r.Config.KeySize >= threshold {
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

// writeGrid draws rows (the first is the header) as a +---+ bordered grid,
// the first two columns left-aligned, the others right-aligned.
func writeGrid(b *strings.Builder, rows [][]string) { writeGridAligned(b, rows, 2) }

// writeGridAligned is writeGrid with the first left columns left-aligned.
func writeGridAligned(b *strings.Builder, rows [][]string, left int) {
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
			if j < left {
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
