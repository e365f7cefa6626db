package plot

import (
	"slices"
	"strings"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
)

// cellScope picks the cells a figure draws: an op's, an op's at one
// size, a distribution's. Under Options.TrustedOnly it counts the
// untrusted cells the figure would have drawn, for its caption.
type cellScope func(results.Cell) bool

func opScope(op string) cellScope { return func(c results.Cell) bool { return c.Op == op } }

func sizeScope(op string, size int) cellScope {
	return func(c results.Cell) bool { return c.Op == op && c.ValueSize == size }
}

func distScope(dist string) cellScope {
	return func(c results.Cell) bool { return c.Distribution == dist }
}

func classScope(op, dist string) cellScope {
	return func(c results.Cell) bool { return c.Op == op && c.Distribution == dist }
}

// trustedRun is run without its cells that failed a check a figure of
// them needs (results.TrustedChecks: tail_precision only for a figure of
// the tail), for figures to draw only cells that certify themselves; run
// itself is unchanged.
func trustedRun(run *results.Run, tail bool) *results.Run {
	kept := *run
	kept.Cells = slices.DeleteFunc(slices.Clone(run.Cells), func(c results.Cell) bool { return !results.TrustedChecks(c.Checks, tail) })
	return &kept
}

// trustedRuns are runs each without the cells that failed a check a
// comparison figure of them, of their tail when tail is set, needs
// (trustedRun).
func trustedRuns(runs []RunDir, tail bool) []RunDir {
	out := slices.Clone(runs)
	for i := range out {
		out[i].Run = trustedRun(out[i].Run, tail)
	}
	return out
}

// noteLeftOut notes on each figure drawn from trusted cells alone how
// many untrusted cells of full, the runs unfiltered, it left out.
func noteLeftOut(figs []*Figure, full ...*results.Run) {
	for _, f := range figs {
		if f.scope != nil {
			f.Note = leftOutNote("cell", untrustedIn(f.scope, f.tail, full...))
		}
	}
}

// untrustedIn counts the cells of runs in scope that failed a check a
// figure of them, of their tail when tail is set, needs.
func untrustedIn(scope cellScope, tail bool, runs ...*results.Run) int {
	n := 0
	for _, r := range runs {
		for _, c := range r.Cells {
			if scope(c) && !results.TrustedChecks(c.Checks, tail) {
				n++
			}
		}
	}
	return n
}

// leftOutNote is what a figure drawn from trusted measurements alone adds
// to its caption: "trusted cells only, 3 untrusted cells left out", or
// "none left out", so that a published figure says it was filtered and by
// how much.
func leftOutNote(what string, n int) string {
	if n == 0 {
		return "trusted " + what + "s only, none left out"
	}
	return "trusted " + what + "s only, " + units.Plural(n, "untrusted "+what) + " left out"
}

// captionNotes appends each figure's note to its caption.
func captionNotes(figs []*Figure) {
	for _, f := range figs {
		if f.Note != "" {
			f.Caption = strings.TrimPrefix(f.Caption+"; "+f.Note, "; ")
		}
	}
}

// tuneFilter draws a tune's figure from trusted measurements alone when
// on, counting what it leaves out; off, it keeps everything.
type tuneFilter struct {
	on   bool
	tail bool // the tune's answer rests on the p99 (tune.Config.Tail)
	left int
}

// keep reports whether a point measured by ss is drawn: off, or every
// repetition trusted.
func (tf *tuneFilter) keep(ss []tune.Sample) bool {
	if !tf.on || !slices.ContainsFunc(ss, func(s tune.Sample) bool { return !s.TrustedFor(tf.tail) }) {
		return true
	}
	tf.left++
	return false
}

// tile is c as a map draws it: an untrusted tile left out when on.
func (tf *tuneFilter) tile(c tune.MapCell) MapCell {
	if tf.on && c.Untrusted {
		tf.left++
		return MapCell{Winner: leftOutTile}
	}
	return MapCell{Winner: string(c.Winner), Ratio: c.Ratio, Untrusted: c.Untrusted}
}

// noted is f with, when on, what was left out of it as its note.
func (tf *tuneFilter) noted(f *Figure) *Figure {
	if tf.on {
		f.Note = leftOutNote("point", tf.left)
	}
	return f
}
