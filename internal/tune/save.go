package tune

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kvbench/kvbench/internal/plot"
)

// Files written by Save.
const (
	JSONFile = "tune.json"
	TextFile = "tune.txt"
)

// Save writes tune.json, tune.txt, one tune-OP chart (PNG and SVG) per op
// and, with phases, one tune-phases-OP chart per op into dir, creating it,
// and returns the paths written.
func (r *Result) Save(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	var txt bytes.Buffer
	if err := r.WriteTable(&txt); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range []struct {
		name string
		data []byte
	}{{JSONFile, append(js, '\n')}, {TextFile, txt.Bytes()}} {
		path := filepath.Join(dir, f.name)
		if err := os.WriteFile(path, f.data, 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, path)
	}
	for _, fig := range r.Figures() {
		ps, err := fig.Save(dir, plot.DefaultWidthPx, plot.DefaultHeightPx)
		paths = append(paths, ps...)
		if err != nil {
			return paths, fmt.Errorf("%s: %w", fig.Name, err)
		}
	}
	return paths, nil
}

// Figures draws, per load and op, the two protocols' curves of the
// compared figure with the repetitions' spread, the crossover and the
// load's threshold, and when phases were recorded the stacked phase p50s
// per size; with several loads, per op, the map of winners over size and
// load. The eager curve has no point where eager could not be measured
// (its legend says where), and no crossover is drawn unless one was
// measured. Every figure is captioned with the build.
func (r *Result) Figures() []*plot.Figure {
	var figs []*plot.Figure
	for _, l := range r.Loads {
		suffix := ""
		if len(r.Loads) > 1 {
			suffix = "-" + l.Load.Label()
		}
		for _, o := range l.Ops {
			if fig, err := r.curves(&l, &o); err == nil {
				fig.Name += suffix
				figs = append(figs, fig)
			}
			if fig, err := plot.PhaseBars(o.Op.String(), o.phaseSizes()); err == nil && fig != nil {
				fig.Name = "tune-" + fig.Name + suffix
				figs = append(figs, fig)
			}
		}
	}
	if len(r.Loads) > 1 {
		figs = append(figs, r.mapFigures()...)
	}
	for _, f := range figs {
		f.Caption = r.Build.String()
	}
	return figs
}

// curves is op's crossover chart at one load.
func (r *Result) curves(l *LoadResult, o *OpResult) (*plot.Figure, error) {
	e := plot.Curve{Name: "forced eager"}
	if u := o.EagerUnmeasured; len(u) > 0 {
		e.Name += " (not measured at " + sizeList(u) + ")"
		if len(u) > 2 {
			e.Name = fmt.Sprintf("forced eager (not measured at %d sizes, %s)", len(u), sizeSpan(u[0], u[len(u)-1]))
		}
	}
	rv := plot.Curve{Name: "forced rendezvous"}
	j := r.Config.judge()
	for _, p := range o.Points {
		if len(p.Eager) > 0 {
			lo, hi := bounds(p.Eager, j.value)
			e.Sizes, e.Mid, e.Lo, e.Hi = append(e.Sizes, p.Size), append(e.Mid, p.EagerValue), append(e.Lo, lo), append(e.Hi, hi)
		}
		lo, hi := bounds(p.Rendezvous, j.value)
		rv.Sizes, rv.Mid, rv.Lo, rv.Hi = append(rv.Sizes, p.Size), append(rv.Mid, p.RdvValue), append(rv.Lo, lo), append(rv.Hi, hi)
	}
	title := "forced eager vs forced rendezvous"
	if len(r.Loads) > 1 || l.Load != (Load{Connections: 1, Depth: 1}) {
		title += " at " + l.Load.String()
	}
	q := plot.Quantity{Label: r.Config.objectiveName() + " (median of repeats)", Rate: r.Objective.higher()}
	return plot.Crossover(o.Op.String(), title, q, []plot.Curve{e, rv}, o.Crossover, l.Recommended)
}

// mapFigures are the per-op maps of winners over size and load.
func (r *Result) mapFigures() []*plot.Figure {
	var figs []*plot.Figure
	var loads []string
	var thresholds []int
	for _, l := range r.Loads {
		loads = append(loads, l.Load.String())
		thresholds = append(thresholds, l.Recommended)
	}
	for _, op := range r.Config.Ops {
		sizes, cells := r.Map(op)
		if fig, err := plot.ThresholdMap(op.String(), r.Config.objectiveName(), sizes, loads, cells, thresholds, r.Config.KeySize); err == nil {
			figs = append(figs, fig)
		}
	}
	return figs
}

// phaseSizes are o's phase medians as the phase figure's bars.
func (o *OpResult) phaseSizes() []plot.PhaseSize {
	var out []plot.PhaseSize
	for _, p := range o.Points {
		if len(p.EagerPhases) > 0 || len(p.RdvPhases) > 0 {
			out = append(out, plot.PhaseSize{Size: p.Size, Eager: p.EagerPhases, Rendezvous: p.RdvPhases})
		}
	}
	return out
}

// bounds is the range of f over ss.
func bounds(ss []Sample, f func(Sample) float64) (lo, hi float64) {
	for i, s := range ss {
		v := f(s)
		if i == 0 || v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}
