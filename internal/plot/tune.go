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
// Every figure is captioned with the build. A map's tile whose winner
// stands on a measurement that failed a check is drawn untrusted.
func TuneFigures(r *tune.Result) []*Figure { return tuneFigures(r, false) }

// TrustedTuneFigures are TuneFigures drawn from trusted measurements
// alone: a curve's point, a phase bar or a map's tile any of whose
// repetitions failed a check is left out, each caption saying how many.
func TrustedTuneFigures(r *tune.Result) []*Figure { return tuneFigures(r, true) }

func tuneFigures(r *tune.Result, trustedOnly bool) []*Figure {
	var figs []*Figure
	filter := func() *tuneFilter { return &tuneFilter{on: trustedOnly, tail: r.Config.Tail()} }
	for _, l := range r.Loads {
		suffix := ""
		if len(r.Loads) > 1 {
			suffix = "-" + l.Load.Label()
		}
		if l.Workload != nil {
			tf := filter()
			if fig, err := tuneCandidates(r, &l, tf); err == nil {
				fig.Name += suffix
				figs = append(figs, tf.noted(fig))
			}
		}
		for _, o := range l.Ops {
			tf := filter()
			if fig, err := tuneCurves(r, &l, &o, tf); err == nil {
				fig.Name += suffix
				figs = append(figs, tf.noted(fig))
			}
			tf = filter()
			if fig, err := PhaseBars(o.Op.String(), tunePhaseSizes(&o, tf)); err == nil && fig != nil {
				fig.Name = "tune-" + fig.Name + suffix
				figs = append(figs, tf.noted(fig))
			}
		}
	}
	if len(r.Loads) > 1 && r.Config.Workload == nil {
		figs = append(figs, tuneMaps(r, filter)...)
	}
	for _, f := range figs {
		f.Caption = r.Build.String()
	}
	captionNotes(figs)
	return figs
}

// SaveTune writes TuneFigures(r) into dir, PNG and SVG at the default
// size, creating dir, and returns the files written.
func SaveTune(r *tune.Result, dir string) ([]string, error) {
	return SaveTuneWith(r, Options{OutDir: dir})
}

// SaveTuneWith writes r's figures as opt asks (TrustedTuneFigures under
// opt.TrustedOnly) and returns the files written.
func SaveTuneWith(r *tune.Result, opt Options) ([]string, error) {
	opt, err := opt.sized()
	if err != nil {
		return nil, err
	}
	figs := TuneFigures(r)
	if opt.TrustedOnly {
		figs = TrustedTuneFigures(r)
	}
	return saveFigures(figs, opt)
}

// tuneCurves is o's crossover chart at load l.
func tuneCurves(r *tune.Result, l *tune.LoadResult, o *tune.OpResult, tf *tuneFilter) (*Figure, error) {
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
		if len(p.Eager) > 0 && tf.keep(p.Eager) {
			e.add(p.Size, p.EagerValue, p.Eager, j.Value)
		}
		if tf.keep(p.Rendezvous) {
			rv.add(p.Size, p.RdvValue, p.Rendezvous, j.Value)
		}
		if pa := p.Adaptive; pa != nil && pa.Status == tune.Measured && tf.keep(pa.Samples) {
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

// tuneMaps are the per-op maps of winners over size and load, each with
// its own filter.
func tuneMaps(r *tune.Result, filter func() *tuneFilter) []*Figure {
	var figs []*Figure
	var loads []string
	var thresholds []int
	for _, l := range r.Loads {
		loads = append(loads, l.Load.String())
		thresholds = append(thresholds, l.Recommended)
	}
	for _, op := range r.Config.Ops {
		sizes, cells := r.Map(op)
		tf := filter()
		tiles := make([][]MapCell, len(cells))
		for i, row := range cells {
			for _, c := range row {
				tiles[i] = append(tiles[i], tf.tile(c))
			}
		}
		if fig, err := ThresholdMap(op.String(), r.Config.ObjectiveName(), sizes, loads, tiles, thresholds, r.Config.KeySize); err == nil {
			figs = append(figs, tf.noted(fig))
		}
	}
	return figs
}

// tunePhaseSizes are o's phase medians as the phase figure's bars, a
// protocol's left out at a size where tf leaves its repetitions out.
func tunePhaseSizes(o *tune.OpResult, tf *tuneFilter) []PhaseSize {
	var out []PhaseSize
	for _, p := range o.Points {
		ps := PhaseSize{Size: p.Size}
		if len(p.EagerPhases) > 0 && tf.keep(p.Eager) {
			ps.Eager = p.EagerPhases
		}
		if len(p.RdvPhases) > 0 && tf.keep(p.Rendezvous) {
			ps.Rendezvous = p.RdvPhases
		}
		if len(ps.Eager) > 0 || len(ps.Rendezvous) > 0 {
			out = append(out, ps)
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
