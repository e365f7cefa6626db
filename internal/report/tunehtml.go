package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/kvbench/kvbench/internal/htmlpage"
	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
)

// TuneRan is what a tune's page says beyond its result: the workload's
// name, the target measured, and the files kept beside the page that it
// links to (tune.json, profile.json, ...).
type TuneRan struct {
	Workload, Target string
	Files            []string
}

// TuneHTML writes r as one self-contained page, as kvbench tune keeps it
// in tune.html: what ran, the answer and why (tune.txt's explanation),
// the tables tune.txt prints, the figures plot draws inline, the phases
// that decide, and links to the raw files. Sizes whose repetitions warned
// are marked where their numbers are.
func TuneHTML(w io.Writer, r *tune.Result, ran TuneRan) error {
	t := newTuneReport(r)
	p := &htmlpage.Page{Title: "kvbench tune: " + ran.Workload, Sub: t.answerLine()}
	p.Add("ran", "What ran", t.ranFacts(ran))
	p.Add("answer", "The answer", htmlpage.Para(t.answerLine()), htmlpage.List("explanation", t.explanation()))
	p.Add("loads", "Per load", t.loadBlocks()...)
	figs, phaseFigs, err := tuneFigures(r)
	if err != nil {
		return err
	}
	p.Add("map", "Map and curves", append(t.mapBlocks(), figs...)...)
	if phases := append(t.phaseBlocks(), phaseFigs...); len(phases) > 0 {
		p.Add("phases", "The phases that decide", phases...)
	}
	p.Add("raw", "Raw files", rawLinks(ran.Files))
	return p.Write(w)
}

// ranFacts say what was measured, where, and by which build.
func (t *tuneReport) ranFacts(ran TuneRan) template.HTML {
	c := &t.r.Config
	var loads []string
	for _, l := range t.r.Loads {
		loads = append(loads, l.Load.String())
	}
	facts := [][2]string{{"workload", ran.Workload}, {"target", ran.Target},
		{"loads", strings.Join(loads, "; ")}, {"objective", c.ObjectiveName()}}
	if len(c.Sizes) > 0 {
		facts = append(facts, [2]string{"sizes", units.Sizes(c.Sizes)})
	}
	if c.Workload != nil {
		facts = append(facts, [2]string{"distribution", c.Workload.Distribution})
	}
	facts = append(facts, [2]string{"repeats", fmt.Sprint(c.Repeats)}, [2]string{"build", t.r.Build.String()})
	if h := t.r.Harness; h != nil {
		facts = append(facts, [2]string{harnessKey, h.String()})
	}
	return htmlpage.Facts(facts...)
}

// answerLine is the threshold in a few words: the one every load agrees
// on, each load's, or none.
func (t *tuneReport) answerLine() string {
	r := t.r
	if r.Recommended > 0 {
		return "recommended eager threshold: " + units.Bytes(int64(r.Recommended))
	}
	if len(r.Loads) > 1 && !allNone(r.Loads) {
		return "thresholds by load: " + disagreement(r.Loads)
	}
	return "no threshold recommended"
}

func allNone(loads []tune.LoadResult) bool {
	for _, l := range loads {
		if l.Recommended > 0 {
			return false
		}
	}
	return true
}

// loadBlocks are the tables tune.txt prints at each load, a heading
// paragraph before each, then the legend and the warnings.
func (t *tuneReport) loadBlocks() []template.HTML {
	var out []template.HTML
	for _, l := range t.r.Loads {
		if len(t.r.Loads) > 1 {
			out = append(out, htmlpage.Para("at "+l.Load.String()))
		}
		if l.Workload != nil {
			title, rows := t.workloadRows(&l)
			out = append(out, htmlpage.Para(title), gridTable(rows, 2, nil))
		}
		for _, o := range l.Ops {
			out = append(out, t.opBlocks(&l, &o)...)
		}
	}
	if legend := t.legend(); legend != "" {
		out = append(out, htmlpage.Para(legend))
	}
	if w := t.warningLines(); len(w) > 0 {
		out = append(out, htmlpage.Para("warnings (measurements not to be trusted; docs/USAGE.md says what each means):"),
			htmlpage.List("warnings", w))
	}
	return out
}

// opBlocks are o's tables at l, as writeOp prints them.
func (t *tuneReport) opBlocks(l *tune.LoadResult, o *tune.OpResult) []template.HTML {
	out := []template.HTML{htmlpage.Para(t.opTitle(o))}
	if l.Recommended > 0 {
		out = append(out, gridTable(t.protocolRanges(o.Op, l.Recommended), 2, nil))
	}
	out = append(out, gridTable(t.sizeRows(o, l.Recommended), 2, func(i int) string { return pointDoubt(o.Points[i]) }))
	if f := flagLines(o); len(f) > 0 {
		out = append(out, htmlpage.List("warnings", f))
	}
	if title, rows, left := t.sizeAdaptiveRows(o); rows != nil {
		out = append(out, htmlpage.Para(title), gridTable(rows, left, nil))
	}
	return out
}

// pointDoubt says why p's figures are not to be trusted: its flags and
// its repetitions' warnings; empty when nothing looked wrong.
func pointDoubt(p tune.Point) string {
	var why []string
	for _, f := range p.Flags {
		why = append(why, flagText(f))
	}
	for _, ss := range [][]tune.Sample{p.Eager, p.Rendezvous} {
		for _, s := range ss {
			for _, w := range s.Warnings {
				why = append(why, w.Message)
			}
		}
	}
	return strings.Join(why, "; ")
}

// legend is tune.txt's legend as one paragraph.
func (t *tuneReport) legend() string {
	var b strings.Builder
	if t.r.Config.Workload != nil {
		t.writeWorkloadLegend(&b)
	}
	if len(t.r.Config.Sizes) > 0 {
		t.writeLegend(&b)
	}
	return strings.TrimSpace(strings.ReplaceAll(b.String(), "\n", " "))
}

// warningLines are tune.txt's warnings, a line each.
func (t *tuneReport) warningLines() []string {
	var b strings.Builder
	t.writeWarnings(&b)
	var out []string
	for i, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if i > 0 { // the first line heads them
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// mapBlocks are the maps of winners over size and load, with several
// loads of fixed sizes.
func (t *tuneReport) mapBlocks() []template.HTML {
	if len(t.r.Loads) < 2 || t.r.Config.Workload != nil {
		return nil
	}
	var out []template.HTML
	for _, op := range t.r.Config.Ops {
		title, rows := t.mapRows(op)
		out = append(out, htmlpage.Para(title), gridTable(rows, 1, nil))
	}
	return out
}

// phaseBlocks say, per load and op, which phase decides the crossover.
func (t *tuneReport) phaseBlocks() []template.HTML {
	var lines []string
	for _, l := range t.r.Loads {
		for _, o := range l.Ops {
			if d := t.decider(&o); d != "" {
				lines = append(lines, d)
			}
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return []template.HTML{htmlpage.List("", lines)}
}

// phaseFigure says a figure of TuneFigures is a phase breakdown
// (plot.PhaseBars, named "tune-phases-OP").
const phaseFigure = "tune-phases-"

// tuneFigures are plot.TuneFigures inline, the phase breakdowns apart.
func tuneFigures(r *tune.Result) (figs, phases []template.HTML, err error) {
	for _, f := range plot.TuneFigures(r) {
		h, err := htmlpage.Figure(f)
		if err != nil {
			return nil, nil, err
		}
		if strings.HasPrefix(f.Name, phaseFigure) {
			phases = append(phases, h)
		} else {
			figs = append(figs, h)
		}
	}
	return figs, phases, nil
}

// rawLinks link the files kept beside the page.
func rawLinks(files []string) template.HTML {
	var links [][2]string
	for _, f := range files {
		links = append(links, [2]string{f, f})
	}
	return htmlpage.LinkList(links...)
}

// gridTable is rows, a grid as writeGrid prints it, as a page's table:
// the first row the header, the first left columns words. doubt, when
// set, says why data row i is not to be trusted ("" when it is); its
// numbers are then marked.
func gridTable(rows [][]string, left int, doubt func(i int) string) template.HTML {
	var cells [][]htmlpage.Cell
	for i, row := range rows[1:] {
		note := ""
		if doubt != nil {
			note = doubt(i)
		}
		var cs []htmlpage.Cell
		for j, s := range row {
			c := htmlpage.N(s)
			if j < left {
				c = htmlpage.T(s)
			} else if note != "" {
				c.Untrusted, c.Note = true, note
			}
			cs = append(cs, c)
		}
		cells = append(cells, cs)
	}
	return htmlpage.Table(rows[0], cells)
}
