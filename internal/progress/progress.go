// Package progress shows a run's progress: a bar per cell and phase on a
// terminal, a plain line per second otherwise (logs, CI), nothing when
// quiet.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/kvbench/kvbench/internal/bench"
)

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// New returns the observer for w: bars when tty is set, lines otherwise.
func New(w io.Writer, tty bool) bench.Observer {
	if tty {
		return &Bars{w: w}
	}
	return &Lines{w: w, every: time.Second}
}

// rate tracks operations per second between two snapshots.
type rate struct {
	ops int64
	at  time.Duration
}

func (r *rate) next(s bench.Status) float64 {
	d := s.Elapsed - r.at
	var v float64
	if d > 0 {
		v = float64(s.Ops-r.ops) / d.Seconds()
	}
	r.ops, r.at = s.Ops, s.Elapsed
	return v
}

// average is the phase's operations per second so far.
func average(s bench.Status) float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Ops) / s.Elapsed.Seconds()
}

func label(s bench.Status) string {
	if s.Distribution != "" {
		return fmt.Sprintf("[%d/%d] threshold %d, mixed values (mean %s), %s", s.Cell+1, s.Cells, s.Threshold, Bytes(s.ValueSize), s.Phase)
	}
	return fmt.Sprintf("[%d/%d] threshold %d, %s values, %s", s.Cell+1, s.Cells, s.Threshold, Bytes(s.ValueSize), s.Phase)
}

func bound(s bench.Status) string {
	switch {
	case s.Limit > 0:
		return fmt.Sprintf("%s/%s", s.Elapsed.Round(time.Second/10), s.Limit)
	case s.LimitOps > 0:
		return fmt.Sprintf("%d/%d ops", s.Ops, s.LimitOps)
	}
	return s.Elapsed.Round(time.Second / 10).String()
}

// Bytes renders a byte count with a binary unit: 64B, 4KiB, 1.5MiB.
func Bytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

// Lines prints one line per phase start, one per interval while it runs
// and one at its end.
type Lines struct {
	w     io.Writer
	every time.Duration
	last  time.Duration
	r     rate
}

// Observe implements bench.Observer.
func (l *Lines) Observe(s bench.Status) {
	switch s.Event {
	case bench.PhaseStart:
		l.last, l.r = 0, rate{}
		fmt.Fprintf(l.w, "%s: start\n", label(s))
	case bench.PhaseTick:
		if s.Elapsed-l.last < l.every {
			return
		}
		l.last = s.Elapsed
		fmt.Fprintf(l.w, "%s: %s, %.0f ops/s, %d errors\n", label(s), bound(s), l.r.next(s), s.Errors)
	case bench.PhaseEnd:
		fmt.Fprintf(l.w, "%s: done, %d ops in %s (%.0f ops/s), %d errors\n", label(s), s.Ops, s.Elapsed.Round(time.Millisecond), average(s), s.Errors)
	}
}

// Bars draws a progress bar per phase of each cell.
type Bars struct {
	w   io.Writer
	bar *progressbar.ProgressBar
	r   rate
}

// Observe implements bench.Observer.
func (b *Bars) Observe(s bench.Status) {
	switch s.Event {
	case bench.PhaseStart:
		b.r = rate{}
		max := int64(-1)
		switch {
		case s.Limit > 0:
			max = s.Limit.Milliseconds()
		case s.LimitOps > 0:
			max = s.LimitOps
		}
		b.bar = progressbar.NewOptions64(max,
			progressbar.OptionSetWriter(b.w),
			progressbar.OptionSetDescription(label(s)),
			progressbar.OptionSetWidth(30),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionShowDescriptionAtLineEnd(),
		)
	case bench.PhaseTick, bench.PhaseEnd:
		if b.bar == nil {
			return
		}
		// While running, the rate since the last tick; at the end, the
		// phase's average (the last tick-to-end slice is too short to mean
		// anything, and the line stays on screen).
		rate := b.r.next(s)
		if s.Event == bench.PhaseEnd {
			rate = average(s)
		}
		b.bar.Describe(fmt.Sprintf("%s  %.0f ops/s, %d errors", label(s), rate, s.Errors))
		if s.Limit > 0 {
			b.bar.Set64(min(s.Elapsed.Milliseconds(), s.Limit.Milliseconds()))
		} else {
			b.bar.Set64(s.Ops)
		}
		if s.Event == bench.PhaseEnd {
			b.bar.Finish()
			fmt.Fprintln(b.w)
			b.bar = nil
		}
	}
}
