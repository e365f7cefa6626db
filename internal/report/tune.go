package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
)

// Tune prints a tune's result as kvbench tune prints it and keeps it in
// tune.txt: per load and op, tables in the manner of UCX's protocol info,
// first the value size ranges and the protocol the recommended threshold
// selects for each, then one row per measured size covering the sizes up
// to the next one, with the medians of both protocols, their ratio and the
// paired repeats rendezvous won. Sizes where eager could not be measured
// show n/a and are named in the explanation. With several loads the map
// of winners follows, then the legend, the explanation and the
// measurements' warnings. On a distribution of sizes the candidate
// thresholds' table comes first at each load, and the sizes' tables,
// measured for the prediction, after it.
func Tune(w io.Writer, r *tune.Result) error {
	t := newTuneReport(r)
	var b strings.Builder
	for _, l := range r.Loads {
		if len(r.Loads) > 1 {
			b.WriteString("== at " + l.Load.String() + " ==\n")
		}
		if l.Workload != nil {
			t.writeWorkload(&b, &l)
			if len(l.Ops) > 0 {
				b.WriteString("single sizes, measured one by one to predict the threshold:\n")
			}
		}
		for _, o := range l.Ops {
			t.writeOp(&b, &l, &o)
		}
	}
	if len(r.Loads) > 1 && r.Config.Workload == nil {
		t.writeMaps(&b)
	}
	if r.Config.Workload != nil {
		t.writeWorkloadLegend(&b)
	}
	if len(r.Config.Sizes) > 0 {
		t.writeLegend(&b)
	}
	b.WriteString("\n")
	for _, e := range t.explanation() {
		b.WriteString(e + "\n")
	}
	if c := r.Harness; c != nil {
		b.WriteString(harnessKey + ": " + c.String() + "\n")
	}
	t.writeTrust(&b)
	t.writeProfile(&b)
	t.writeWarnings(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// tuneReport renders a tune's result: r judged by j.
type tuneReport struct {
	r *tune.Result
	j tune.Judge
}

func newTuneReport(r *tune.Result) *tuneReport { return &tuneReport{r: r, j: r.Config.Judge()} }

// header is the per-size table's header: the compared figure, and p50 and
// throughput beside it when the figure is something else.
func (t *tuneReport) header() []string {
	obj := t.r.Objective
	name := string(obj)
	switch obj {
	case tune.ObjCPU:
		name = t.j.Side + " cpu/op"
	case tune.ObjThroughput:
		name = "ops/s"
	}
	h := []string{"size range", "protocol", "eager " + name, "rdv " + name}
	if obj != tune.ObjP50 {
		h = append(h, "eager p50", "rdv p50")
	}
	return append(h, "eager MiB/s", "rdv MiB/s", "ratio", "rdv wins", "p")
}

// writeOp prints one op's tables at one load.
func (t *tuneReport) writeOp(b *strings.Builder, l *tune.LoadResult, o *tune.OpResult) {
	b.WriteString(t.opTitle(o) + "\n")
	if l.Recommended > 0 {
		writeGrid(b, t.protocolRanges(o.Op, l.Recommended), 2)
	}
	writeGrid(b, t.sizeRows(o, l.Recommended), 2)
	for _, f := range flagLines(o) {
		b.WriteString(f + "\n")
	}
	b.WriteString("\n")
	t.writeSizeAdaptive(b, o)
}

// opTitle heads o's tables: its crossover and threshold, or its verdict.
func (t *tuneReport) opTitle(o *tune.OpResult) string {
	if o.Found {
		return fmt.Sprintf("%s: crossover at %s, eager threshold for %s alone %s", o.Op,
			units.Bytes(int64(o.Crossover)), o.Op, units.Bytes(int64(o.Threshold)))
	}
	return o.Op.String() + ": " + t.verdict(o)
}

// sizeRows are o's per-size table, its header first: a row per measured
// size covering the sizes up to the next, the protocol threshold selects.
func (t *tuneReport) sizeRows(o *tune.OpResult, threshold int) [][]string {
	rows := [][]string{t.header()}
	for i, p := range o.Points {
		rng := "[" + units.Bytes(int64(p.Size)) + ", "
		if i+1 < len(o.Points) {
			rng += units.Bytes(int64(o.Points[i+1].Size)) + ")"
		} else {
			rng += "inf)"
		}
		rows = append(rows, append([]string{rng, t.protocolCell(p, threshold)}, t.figures(p)...))
	}
	return rows
}

// flagLines say, per size of o, what its flags found.
func flagLines(o *tune.OpResult) []string {
	var out []string
	for _, p := range o.Points {
		for _, f := range p.Flags {
			out = append(out, fmt.Sprintf("! %s %s: %s", o.Op, units.Bytes(int64(p.Size)), flagText(f)))
		}
	}
	return out
}

// figures are a point's cells after the protocol column.
func (t *tuneReport) figures(p tune.Point) []string {
	na := "n/a"
	eager, cells := []string{na}, []string{t.format(p.RdvValue)}
	if len(p.Eager) > 0 {
		eager[0] = t.format(p.EagerValue)
	}
	out := append(eager, cells...)
	if t.r.Objective != tune.ObjP50 {
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

// format prints a value of the objective.
func (t *tuneReport) format(v float64) string {
	switch t.r.Objective {
	case tune.ObjThroughput, tune.ObjCapacity:
		return units.Rate(v) + " ops/s"
	}
	return units.Duration(v) // latency, or CPU time per operation
}

// writeLegend explains the columns once.
func (t *tuneReport) writeLegend(b *strings.Builder) {
	c := &t.r.Config
	name := c.ObjectiveName()
	ratio, lower := "eager "+name+" / rendezvous "+name, "lower"
	if t.r.Objective.Higher() {
		ratio, lower = "rendezvous "+name+" / eager "+name, "higher"
	}
	fmt.Fprintf(b, "ratio = %s (above 1: rendezvous %s), medians of %d repeats.\n", ratio, t.adj(), c.Repeats)
	if c.SLO != nil && c.Workload == nil {
		t.writeCapacityLegend(b)
	}
	fmt.Fprintf(b, "rdv wins: repeats in which rendezvous had the %s %s of the back-to-back pair;\n", lower, name)
	if t.j.Margin > 0 {
		fmt.Fprintf(b, "too few repeats for a sign test: a protocol wins a size when its capacity is more than %.0f%% higher.\n", 100*tune.SLOMargin)
	} else {
		fmt.Fprintf(b, "p: sign test for the protocol that won more pairs; it wins the size when p <= %g, else a tie.\n", t.j.Alpha)
	}
	if slices.ContainsFunc(t.r.Loads, func(l tune.LoadResult) bool { return l.Recommended > 0 }) {
		b.WriteString("protocol: what the recommended threshold selects; \"(tie)\" marks sizes within noise,\n\"!\" sizes where the other protocol measured significantly better.\n")
	} else {
		b.WriteString("protocol: the measured winner (no threshold recommended).\n")
	}
	if t.anyUnmeasured() {
		b.WriteString("eager n/a: the target refused eager at that size, so only rendezvous was measured;\nnothing was compared there and it is not counted as a rendezvous win.\n")
	}
	t.writeSizeAdaptiveLegend(b)
}

// writeCapacityLegend says what a capacity is, once: the candidates'
// legend says it on a distribution.
func (t *tuneReport) writeCapacityLegend(b *strings.Builder) {
	fmt.Fprintf(b, "capacity: the highest open-loop rate whose %s, found by doubling or halving from the\nclosed-loop throughput, then bisecting to within %.0f%%.\n", t.r.Config.SLO, 100*tune.SearchTolerance)
}

func (t *tuneReport) anyUnmeasured() bool {
	for _, l := range t.r.Loads {
		if slices.ContainsFunc(l.Ops, func(o tune.OpResult) bool { return len(o.EagerUnmeasured) > 0 }) {
			return true
		}
	}
	return false
}

// writeWarnings lists the repetitions that may not be trusted, each with
// its op, size, protocol and repetition; nothing when none.
func (t *tuneReport) writeWarnings(b *strings.Builder) {
	var lines []string
	add := func(op string, size int, way string, samples []tune.Sample) {
		for i, s := range samples {
			for _, w := range s.Warnings {
				lines = append(lines, fmt.Sprintf("  %s %s %s, repeat %d: %s", op, units.Bytes(int64(size)), way, i+1, w.Message))
			}
		}
	}
	for _, l := range t.r.Loads {
		at := ""
		if len(t.r.Loads) > 1 {
			at = " at " + l.Load.String()
		}
		if w := l.Workload; w != nil {
			for _, c := range w.Rotation() {
				for i, s := range c.Samples {
					for _, w := range s.Warnings {
						lines = append(lines, fmt.Sprintf("  workload at threshold %s%s, round %d: %s", c.Name(), at, i+1, w.Message))
					}
				}
			}
		}
		for _, o := range l.Ops {
			op := o.Op.String() + at
			for _, p := range o.Points {
				add(op, p.Size, tune.Eager.String(), p.Eager)
				add(op, p.Size, tune.Rendezvous.String(), p.Rendezvous)
				if a := p.Adaptive; a != nil {
					add(op, p.Size, tune.AdaptiveName, a.Samples)
				}
			}
		}
	}
	if len(lines) > 0 {
		b.WriteString("\nwarnings (measurements not to be trusted; docs/USAGE.md says what each means):\n")
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
}

// protocolRanges is the UCX-style summary: value byte ranges and the
// protocol threshold selects for each (rdmakv.ProtocolAt).
func (t *tuneReport) protocolRanges(op rdmakv.Op, threshold int) [][]string {
	key := t.r.Config.KeySize
	head := []string{op.String(), fmt.Sprintf("protocol at eager threshold %s, %d-byte keys",
		units.Bytes(int64(threshold)), key)}
	lastEager := rdmakv.LargestEagerValue(threshold, key)
	if lastEager < 0 {
		return [][]string{head, {"0..inf", "rendezvous"}}
	}
	return [][]string{head,
		{fmt.Sprintf("0..%d", lastEager), "eager"},
		{fmt.Sprintf("%d..inf", lastEager+1), "rendezvous"}}
}

// protocolCell names the protocol used at p: under threshold when there
// is one, else the measured winner.
func (t *tuneReport) protocolCell(p tune.Point, threshold int) string {
	switch {
	case len(p.Eager) == 0 && threshold == 0:
		return "eager n/a"
	case len(p.Eager) == 0:
		return "rendezvous (eager n/a)"
	case threshold == 0:
		return string(p.Winner)
	}
	chosen := rdmakv.ProtocolAt(threshold, t.r.Config.KeySize, p.Size).String()
	switch {
	case p.Winner == tune.WinTie:
		return chosen + " (tie)"
	case string(p.Winner) != chosen:
		return chosen + " !"
	}
	return chosen
}

// writeMaps prints, per op, the winner at each size and load with its
// ratio, then each load's recommended threshold.
func (t *tuneReport) writeMaps(b *strings.Builder) {
	for _, op := range t.r.Config.Ops {
		title, rows := t.mapRows(op)
		b.WriteString(title + "\n")
		writeGrid(b, rows, len(rows[0]))
		b.WriteString("\n")
	}
}

// mapRows are op's map of winners as a table under its title, its header
// first and each load's threshold last.
func (t *tuneReport) mapRows(op rdmakv.Op) (title string, rows [][]string) {
	r := t.r
	title = fmt.Sprintf("%s: winner by %s at each load (ratio above 1: rendezvous better)", op, r.Config.ObjectiveName())
	head := []string{"size"}
	for _, l := range r.Loads {
		head = append(head, l.Load.String())
	}
	rows = [][]string{head}
	sizes, cells := r.Map(op)
	for i, s := range sizes {
		row := []string{units.Bytes(int64(s))}
		for _, c := range cells[i] {
			row = append(row, mapCell(c))
		}
		rows = append(rows, row)
	}
	last := []string{"threshold"}
	for _, l := range r.Loads {
		th := "none"
		if l.Recommended > 0 {
			th = units.Bytes(int64(l.Recommended))
		}
		last = append(last, th)
	}
	return title, append(rows, last)
}

// mapCell is "rdv 1.42", "eager 0.31", "tie 0.98", "eager only", "n/a".
func mapCell(c tune.MapCell) string {
	switch c.Winner {
	case tune.WinUnmeasured, "":
		return "n/a"
	case tune.WinNeither:
		return "neither"
	}
	name := string(c.Winner)
	if c.Winner == tune.WinRendezvous {
		name = "rdv"
	}
	if c.Ratio == 0 {
		return name + " only" // the other met the goal at no rate
	}
	return fmt.Sprintf("%s %.2f", name, c.Ratio)
}
