package plot

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/kvbench/kvbench/internal/results"
)

// compareMetric is one quantity the comparison figures draw against value
// size.
type compareMetric struct {
	name, title, ylabel string
	format              func(float64) string
	get                 func(results.Cell) float64
	// tail: the figure draws a percentile beyond the median, so under
	// Options.TrustedOnly its cells must be trusted throughout.
	tail bool
}

// markerGrey draws threshold markers that several runs may share.
var markerGrey = color.Gray{Y: 110}

var compareMetrics = []compareMetric{
	{"compare-throughput-ops-", "throughput", "throughput (ops/s)", rateLabel,
		func(c results.Cell) float64 { return c.ThroughputOps }, false},
	{"compare-throughput-mib-", "throughput", "throughput (MiB/s of values)", mibLabel,
		func(c results.Cell) float64 { return c.ThroughputBytes / (1 << 20) }, false},
	{"compare-latency-p50-", "p50 latency", "p50 latency", durationLabel,
		func(c results.Cell) float64 { return float64(c.Latency.P50) }, false},
}

// CompareFigures overlays several runs: per op, throughput in ops/s and
// MiB/s and p50 latency against value size, one line per run and line of
// the single-run plots (threshold, or protocol when one threshold holds
// both). Each run has its own colour, labelled as RunLabels says. A run
// whose lines are each one protocol, no two the same (forced eager against
// forced rendezvous), draws eager solid and rendezvous dashed and names
// them by protocol ("4 conn rendezvous"); other runs name their lines by
// threshold and tell them apart by dash in turn. Runs of different kinds
// of store get a p99 figure too, and runLines names their lines. Runs
// whose sizes follow a distribution add the whole workload of each
// (compareWholeWorkload).
func CompareFigures(runs []RunDir) ([]*Figure, error) { return compareFigures(runs, runs) }

// compareFigures are CompareFigures drawn from med, the runs as the
// figures of medians and rates may draw them, and strict, as the figures
// of a tail may: the same runs, or under Options.TrustedOnly each without
// the cells that failed a check such a figure needs.
func compareFigures(med, strict []RunDir) ([]*Figure, error) {
	labels, by := runLabels(med)
	var ops []string
	for _, r := range med {
		for _, op := range Ops(r.Run) {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
	}
	slices.Sort(ops)
	var figs []*Figure
	for _, op := range ops {
		for _, m := range metricsFor(by) {
			runs := med
			if m.tail {
				runs = strict
			}
			f, err := compareFigure(runs, labels, by, op, m)
			if err != nil {
				return nil, err
			}
			if f != nil {
				f.scope, f.tail = opScope(op), m.tail
				figs = append(figs, f)
			}
		}
	}
	for _, dist := range runsDistributions(strict) {
		f, err := compareWholeWorkload(strict, labels, dist)
		if err != nil {
			return nil, err
		}
		if f != nil {
			f.scope, f.tail = distScope(dist), true
			figs = append(figs, f)
		}
	}
	return figs, nil
}

// runsDistributions are the size distributions of runs, each once, in
// order.
func runsDistributions(runs []RunDir) []string {
	var out []string
	for _, r := range runs {
		for _, d := range Distributions(r.Run) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// compareFigure draws metric m of op for every run; nil when nothing
// positive was measured.
func compareFigure(runs []RunDir, labels []string, by, op string, m compareMetric) (*Figure, error) {
	perRun := make([][]group, len(runs))
	var all []group
	for i, r := range runs {
		perRun[i] = groups(r.Run, op)
		all = append(all, perRun[i]...)
	}
	lo, hi := sizeRange(all)
	var ys []float64
	for _, g := range all {
		for _, c := range g.cells {
			if y := m.get(c); c.ValueSize > 0 && y > 0 && !math.IsInf(y, 0) {
				ys = append(ys, y)
			}
		}
	}
	if math.IsInf(lo, 0) || len(ys) == 0 {
		return nil, nil
	}
	title := fmt.Sprintf("%s: %s vs value size, %d runs", op, m.title, len(runs))
	if by != "" {
		title = fmt.Sprintf("%s: %s vs value size by %s", op, m.title, by)
	}
	p := newPlot(title, "value size (bytes, log2)", m.ylabel)
	byteAxis(&p.X, lo, hi)
	logAxis(&p.Y, slices.Min(ys), slices.Max(ys), m.format)
	panel := &Panel{Plot: p}
	byProtocol := true
	for i, gs := range perRun {
		names, dash, ok := runLines(gs, by)
		byProtocol = byProtocol && ok
		for j, g := range gs {
			var pts plotter.XYs
			for _, c := range g.cells {
				pts = append(pts, plotter.XY{X: float64(c.ValueSize), Y: m.get(c)})
			}
			if err := panel.addLine(lineLabel(labels[i], names[j]), pts, colorAt(i), dash[j], protocolGlyph(g.cells), true); err != nil {
				return nil, err
			}
		}
	}
	// Positive thresholds, in grey since runs may share them; a threshold
	// beyond the largest size (forced eager) falls off the axis.
	var ths []int
	for _, g := range all {
		if g.threshold > 0 && !slices.Contains(ths, g.threshold) {
			ths = append(ths, g.threshold)
		}
	}
	slices.Sort(ths)
	for _, t := range ths {
		panel.addMarker(float64(t), sizeName(t), markerGrey)
	}
	if !byProtocol {
		addProtocolLegend(panel, all)
	}
	return &Figure{Name: m.name + op, Panels: []*Panel{panel}}, nil
}

// lineStyles names and dashes one run's lines. When every line is one
// protocol and no two share it, they are named by protocol, eager solid
// and rendezvous dashed (ok is true); otherwise by threshold as in the
// single-run plots, with the dashes in turn.
func lineStyles(gs []group) (names []string, dash [][]vg.Length, ok bool) {
	ok = true
	seen := map[string]bool{}
	for _, g := range gs {
		p := groupProtocol(g)
		ok = ok && p != "" && !seen[p]
		seen[p] = true
	}
	for j, g := range gs {
		if !ok {
			names = append(names, g.name())
			dash = append(dash, dashes[j%len(dashes)])
			continue
		}
		p := groupProtocol(g)
		if g.cells[0].Baseline() {
			// A baseline store has one line, named by the store and
			// solid as eager's: it has no second protocol to set it off
			// from.
			names = append(names, g.name())
			dash = append(dash, nil)
			continue
		}
		names = append(names, p)
		switch {
		case p == "rendezvous":
			dash = append(dash, dashes[1])
		case p == "eager":
			dash = append(dash, nil)
		default:
			dash = append(dash, dashes[2])
		}
	}
	return names, dash, ok
}

// groupProtocol is the protocol every cell of g used, or "" when they
// differ.
func groupProtocol(g group) string {
	if g.protocol != "" {
		return g.protocol
	}
	var p string
	for i, c := range g.cells {
		if i > 0 && c.Protocol != p {
			return ""
		}
		p = c.Protocol
	}
	return p
}

// SaveCompare builds the comparison figures of runs and writes them into
// opt.OutDir (only the size and formats of opt apply), returning the files
// written and warnings about what the runs differ in beyond connections
// and depth.
func SaveCompare(runs []RunDir, opt Options) (paths []string, warnings []error, err error) {
	if len(runs) < 2 {
		return nil, nil, fmt.Errorf("a comparison needs at least two runs, got %d", len(runs))
	}
	opt, err = opt.sized()
	if err != nil {
		return nil, nil, err
	}
	warnings = RunDifferences(runs)
	full, med, strict := runs, runs, runs
	if opt.TrustedOnly {
		med, strict = trustedRuns(runs, false), trustedRuns(runs, true)
	}
	figs, err := compareFigures(med, strict)
	if err != nil {
		return nil, warnings, err
	}
	if opt.TrustedOnly {
		var all []*results.Run
		for _, r := range full {
			all = append(all, r.Run)
		}
		noteLeftOut(figs, all...)
	}
	if len(figs) == 0 {
		return nil, warnings, fmt.Errorf("nothing to plot: no run has a cell with a positive value size and measurements")
	}
	for _, f := range figs {
		f.Caption = buildsOf(runs)
	}
	captionNotes(figs)
	paths, err = saveFigures(figs, opt)
	return paths, warnings, err
}

// buildsOf names the builds that measured runs, each once, in order. A
// build is its version and revision: a baseline's run names no rdmakv
// protocol, and the same kvbench beside an rdmakv run is named as that
// run names it.
func buildsOf(runs []RunDir) string {
	var builds []*results.Run // one run a build, one naming a protocol if any
	for _, r := range runs {
		i := slices.IndexFunc(builds, func(b *results.Run) bool {
			return b.Version == r.Run.Version && b.Revision == r.Run.Revision
		})
		switch {
		case i < 0:
			builds = append(builds, r.Run)
		case builds[i].Protocol == 0:
			builds[i] = r.Run
		}
	}
	names := make([]string, len(builds))
	for i, b := range builds {
		names[i] = b.Build()
	}
	return strings.Join(names, "; ")
}
