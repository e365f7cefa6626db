package plot

import (
	"fmt"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
)

// TuneFigures draws a tune's result: per load and op, the two protocols'
// curves of the compared figure with the repetitions' spread, the
// crossover and the load's threshold (Crossover), and when phases were
// recorded the stacked phase p50s per size (PhaseBars); with several
// loads, per op, the map of winners over size and load (ThresholdMap).
// The eager curve has no point where eager could not be measured (its
// legend says where), and no crossover is drawn unless one was measured.
// On a distribution of sizes each load's chart of the candidate
// thresholds comes first, the chosen one marked, and there is no map.
// Every figure is captioned with the build.
func TuneFigures(r *tune.Result) []*Figure {
	var figs []*Figure
	for _, l := range r.Loads {
		suffix := ""
		if len(r.Loads) > 1 {
			suffix = "-" + l.Load.Label()
		}
		if l.Workload != nil {
			if fig, err := tuneCandidates(r, &l); err == nil {
				fig.Name += suffix
				figs = append(figs, fig)
			}
		}
		for _, o := range l.Ops {
			if fig, err := tuneCurves(r, &l, &o); err == nil {
				fig.Name += suffix
				figs = append(figs, fig)
			}
			if fig, err := PhaseBars(o.Op.String(), tunePhaseSizes(&o)); err == nil && fig != nil {
				fig.Name = "tune-" + fig.Name + suffix
				figs = append(figs, fig)
			}
		}
	}
	if len(r.Loads) > 1 && r.Config.Workload == nil {
		figs = append(figs, tuneMaps(r)...)
	}
	for _, f := range figs {
		f.Caption = r.Build.String()
	}
	return figs
}

// SaveTune writes TuneFigures(r) into dir, PNG and SVG at the default
// size, creating dir, and returns the files written.
func SaveTune(r *tune.Result, dir string) ([]string, error) {
	return saveFigures(TuneFigures(r), Options{OutDir: dir, WidthPx: DefaultWidthPx, HeightPx: DefaultHeightPx})
}

// tuneCurves is o's crossover chart at load l.
func tuneCurves(r *tune.Result, l *tune.LoadResult, o *tune.OpResult) (*Figure, error) {
	e := Curve{Name: "forced eager"}
	if u := o.EagerUnmeasured; len(u) > 0 {
		e.Name += " (not measured at " + units.Sizes(u) + ")"
		if len(u) > 2 {
			e.Name = fmt.Sprintf("forced eager (not measured at %d sizes, %s)", len(u), units.SizeSpan(u[0], u[len(u)-1]))
		}
	}
	rv, a := Curve{Name: "forced rendezvous"}, Curve{Name: tune.AdaptiveName}
	j := r.Config.Judge()
	for _, p := range o.Points {
		if len(p.Eager) > 0 {
			e.add(p.Size, p.EagerValue, p.Eager, j.Value)
		}
		rv.add(p.Size, p.RdvValue, p.Rendezvous, j.Value)
		if pa := p.Adaptive; pa != nil && pa.Status == tune.Measured {
			a.add(p.Size, pa.Value, pa.Samples, j.Value)
		}
	}
	curves, what := []Curve{e, rv}, "forced eager vs forced rendezvous"
	if len(a.Sizes) > 0 {
		// The policy measured beside them, a third curve.
		curves, what = append(curves, a), what+" vs adaptive"
	}
	q := Quantity{Label: r.Config.ObjectiveName() + " (median of repeats)", Rate: r.Objective.Higher()}
	return Crossover(o.Op.String(), tuneTitle(r, l, what), q, curves, o.Crossover, l.Recommended)
}

// tuneMaps are the per-op maps of winners over size and load.
func tuneMaps(r *tune.Result) []*Figure {
	var figs []*Figure
	var loads []string
	var thresholds []int
	for _, l := range r.Loads {
		loads = append(loads, l.Load.String())
		thresholds = append(thresholds, l.Recommended)
	}
	for _, op := range r.Config.Ops {
		sizes, cells := r.Map(op)
		tiles := make([][]MapCell, len(cells))
		for i, row := range cells {
			for _, c := range row {
				tiles[i] = append(tiles[i], MapCell{Winner: string(c.Winner), Ratio: c.Ratio})
			}
		}
		if fig, err := ThresholdMap(op.String(), r.Config.ObjectiveName(), sizes, loads, tiles, thresholds, r.Config.KeySize); err == nil {
			figs = append(figs, fig)
		}
	}
	return figs
}

// tunePhaseSizes are o's phase medians as the phase figure's bars.
func tunePhaseSizes(o *tune.OpResult) []PhaseSize {
	var out []PhaseSize
	for _, p := range o.Points {
		if len(p.EagerPhases) > 0 || len(p.RdvPhases) > 0 {
			out = append(out, PhaseSize{Size: p.Size, Eager: p.EagerPhases, Rendezvous: p.RdvPhases})
		}
	}
	return out
}

// tuneTitle is title at l, the load named unless it is the only one and
// one connection at depth 1.
func tuneTitle(r *tune.Result, l *tune.LoadResult, title string) string {
	if len(r.Loads) > 1 || l.Load != (tune.Load{Connections: 1, Depth: 1}) {
		title += " at " + l.Load.String()
	}
	return title
}

// add appends to c the point at x of median mid, spread over the range of
// f over ss.
func (c *Curve) add(x int, mid float64, ss []tune.Sample, f func(tune.Sample) float64) {
	lo, hi := tuneBounds(ss, f)
	c.Sizes, c.Mid, c.Lo, c.Hi = append(c.Sizes, x), append(c.Mid, mid), append(c.Lo, lo), append(c.Hi, hi)
}

// tuneBounds is the range of f over ss.
func tuneBounds(ss []tune.Sample, f func(tune.Sample) float64) (lo, hi float64) {
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
