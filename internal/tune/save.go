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

// Figures draws, per op, the eager and rendezvous p50 curves with the
// repetitions' spread, the crossover and the recommended threshold, and
// when phases were recorded the stacked phase p50s per size. The
// eager curve has no point where eager could not be measured (its legend
// says where), and no crossover is drawn unless one was measured.
func (r *Result) Figures() []*plot.Figure {
	var figs []*plot.Figure
	for _, o := range r.Ops {
		e := plot.Curve{Name: "forced eager"}
		if u := o.EagerUnmeasured; len(u) > 0 {
			e.Name += " (not measured at " + sizeList(u) + ")"
			if len(u) > 2 {
				e.Name = fmt.Sprintf("forced eager (not measured at %d sizes, %s)", len(u), sizeSpan(u[0], u[len(u)-1]))
			}
		}
		rv := plot.Curve{Name: "forced rendezvous"}
		for _, p := range o.Points {
			if len(p.Eager) > 0 {
				lo, hi := bounds(p.Eager)
				e.Sizes, e.P50, e.Lo, e.Hi = append(e.Sizes, p.Size), append(e.P50, p.EagerP50), append(e.Lo, lo), append(e.Hi, hi)
			}
			lo, hi := bounds(p.Rendezvous)
			rv.Sizes, rv.P50, rv.Lo, rv.Hi = append(rv.Sizes, p.Size), append(rv.P50, p.RdvP50), append(rv.Lo, lo), append(rv.Hi, hi)
		}
		fig, err := plot.Crossover(o.Op, []plot.Curve{e, rv}, o.Crossover, r.Recommended)
		if err == nil {
			figs = append(figs, fig)
		}
		if fig, err := plot.PhaseBars(o.Op, o.phaseSizes()); err == nil && fig != nil {
			fig.Name = "tune-" + fig.Name
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

func bounds(ss []Sample) (lo, hi float64) {
	for i, s := range ss {
		if i == 0 || s.P50 < lo {
			lo = s.P50
		}
		if s.P50 > hi {
			hi = s.P50
		}
	}
	return lo, hi
}
