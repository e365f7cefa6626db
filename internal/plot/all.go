package plot

import (
	"fmt"
	"os"
	"slices"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
)

// Options control SaveAll.
type Options struct {
	// OutDir receives the image files; it is created if missing.
	OutDir string
	// WidthPx and HeightPx are the image size; zero means 800x500.
	WidthPx, HeightPx int
	// Formats are the image formats; empty means png and svg.
	Formats []string
	// Percentiles and Timelines enable the per-size figures, which are one
	// file per operation and value size.
	Percentiles, Timelines bool
	// TrustedOnly leaves out of every figure the cells (a tune's
	// measurements) that failed a check, each figure's caption saying how
	// many it left out.
	TrustedOnly bool
}

// Figures builds every figure for the run: per op, throughput (ops/s and
// MiB/s), latency, and the figure each declared cell figure asks for
// (FigureOf) where cells have it: CPU time per operation against value
// size, the p50 of each phase per value size (PhaseBars), ...; for a
// mixed run the p50 and p99 by size class at each threshold
// (ClassLatency); then per op and value size the percentile distribution
// and the timeline when enabled; last, for a mixed run, the whole
// workload against the threshold (WholeWorkload).
// dir is the run directory the interval logs are read from. Problems that
// only cost one figure are returned in warnings.
func Figures(run *results.Run, dir string, opt Options) (figs []*Figure, warnings []error, err error) {
	full := run
	// A figure of medians and rates draws the cells trusted for them
	// (Cell.TrustedMedian); one that draws a tail, those trusted
	// throughout (Cell.Trusted).
	med, strict := run, run
	if opt.TrustedOnly {
		med, strict = trustedRun(run, false), trustedRun(run, true)
	}
	// add(scope, tail)(f, err) keeps f, which draws the cells in scope,
	// their tail too when tail is set.
	add := func(scope cellScope, tail bool) func(*Figure, error) error {
		return func(f *Figure, err error) error {
			if err != nil {
				return err
			}
			if f != nil {
				f.scope, f.tail = scope, tail
				figs = append(figs, f)
			}
			return nil
		}
	}
	tails := Ops(strict)
	for _, op := range Ops(med) {
		in := opScope(op)
		if err := add(in, false)(Throughput(med, op, OpsPerSec)); err != nil {
			return nil, nil, err
		}
		if err := add(in, false)(Throughput(med, op, MiBPerSec)); err != nil {
			return nil, nil, err
		}
		tail := slices.Contains(tails, op)
		if tail {
			if err := add(in, true)(Latency(strict, op)); err != nil {
				return nil, nil, err
			}
		}
		for _, f := range figure.All() {
			if err := add(in, false)(FigureOf(med, op, f)); err != nil {
				return nil, nil, err
			}
		}
		if tail {
			w, err := tailFigures(strict, dir, op, opt, add)
			warnings = append(warnings, w...)
			if err != nil {
				return nil, nil, err
			}
		}
	}
	for _, dist := range Distributions(strict) {
		if err := add(distScope(dist), true)(WholeWorkload(strict, dist)); err != nil {
			return nil, nil, err
		}
		if err := add(distScope(dist), true)(RampSteps(strict, dir, dist)); err != nil {
			return nil, nil, err
		}
	}
	if opt.TrustedOnly {
		noteLeftOut(figs, full)
	}
	return figs, warnings, nil
}

// tailFigures adds op's figures, after its latency against value size,
// that draw latency percentiles beyond the median: by size class, and
// per value size the percentile distribution and the timeline when
// enabled.
func tailFigures(run *results.Run, dir, op string, opt Options, add func(cellScope, bool) func(*Figure, error) error) (warnings []error, err error) {
	for _, dist := range Distributions(run) {
		if err := add(classScope(op, dist), true)(ClassLatency(run, op, dist)); err != nil {
			return nil, err
		}
	}
	for _, size := range Sizes(run, op) {
		if opt.Percentiles {
			if err := add(sizeScope(op, size), true)(Percentiles(run, op, size)); err != nil {
				return nil, err
			}
		}
		if opt.Timelines {
			f, skipped, err := Timeline(run, dir, op, size)
			warnings = append(warnings, skipped...)
			if err := add(sizeScope(op, size), true)(f, err); err != nil {
				return warnings, err
			}
		}
	}
	return warnings, nil
}

// SaveAll builds and writes every figure, returning the files written.
func SaveAll(run *results.Run, dir string, opt Options) (paths []string, warnings []error, err error) {
	opt, err = opt.sized()
	if err != nil {
		return nil, nil, err
	}
	figs, warnings, err := Figures(run, dir, opt)
	if err != nil {
		return nil, warnings, err
	}
	if len(figs) == 0 {
		return nil, warnings, fmt.Errorf("nothing to plot: no cell has a positive value size and measurements")
	}
	for _, f := range figs {
		f.Caption = run.Build()
	}
	captionNotes(figs)
	paths, err = saveFigures(figs, opt)
	return paths, warnings, err
}

// sized fills in the default image size and checks it.
func (opt Options) sized() (Options, error) {
	if opt.WidthPx == 0 {
		opt.WidthPx = DefaultWidthPx
	}
	if opt.HeightPx == 0 {
		opt.HeightPx = DefaultHeightPx
	}
	if opt.WidthPx < 200 || opt.HeightPx < 150 {
		return opt, fmt.Errorf("image size %dx%d too small (at least 200x150)", opt.WidthPx, opt.HeightPx)
	}
	return opt, nil
}

// saveFigures writes figs into opt.OutDir, creating it, and returns the
// files written.
func saveFigures(figs []*Figure, opt Options) (paths []string, err error) {
	if err := os.MkdirAll(opt.OutDir, 0o755); err != nil {
		return nil, err
	}
	for _, f := range figs {
		ps, err := f.Save(opt.OutDir, opt.WidthPx, f.Height(opt.HeightPx), opt.Formats...)
		paths = append(paths, ps...)
		if err != nil {
			return paths, fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	return paths, nil
}

// Height is the figure's height for an image of heightPx: past two
// panels each gets half the height two share, so the whole workload's
// five stay as legible as a timeline's two.
func (f *Figure) Height(heightPx int) int { return heightPx * max(2, len(f.Panels)) / 2 }
