package bench

import (
	"fmt"
	"time"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/internal/workload"
)

// Replay is a run's trace (Config.Trace): which requests of which file
// each cell replays, and how fast.
type Replay struct {
	// Path is the file to open; Format its format.
	Path   string
	Format trace.Format
	// Speed divides the recorded times (2: twice as fast); 0 issues each
	// request as soon as a worker of its connection is free.
	Speed float64
	// Skip and Ops, or Start and Duration (recorded time), bound the
	// window (0: no bound); Loop replays it again, times continuing, until
	// the measure phase ends.
	Skip, Ops       int64
	Start, Duration time.Duration
	Loop            bool
	// Spec names the cells (results.Cell.Distribution); Info is what
	// results.json records of the trace.
	Spec string
	Info *workload.Trace

	// maxValue is the largest value size of the window's first
	// ScanLines lines and meanSet their sets' mean (ScanTrace).
	maxValue, meanSet int
}

// replayOf is the Replay of a workload's trace section.
func replayOf(t *workload.Trace) *Replay {
	return &Replay{
		Path: t.Path(), Format: trace.Format(t.Format), Speed: float64(t.Speed),
		Skip: t.Skip, Ops: t.Ops, Start: time.Duration(t.Start), Duration: time.Duration(t.Duration), Loop: t.Loop,
		Spec: t.Spec(), Info: t,
	}
}

// paced says the replay keeps the recorded times (an open loop) rather
// than issuing as fast as it can.
func (rp *Replay) paced() bool { return rp.Speed > 0 }

// offset is when a request recorded at t (ns since the phase's first)
// is to start.
func (rp *Replay) offset(t int64) int64 {
	if !rp.paced() {
		return 0
	}
	return int64(float64(t) / rp.Speed)
}

// cell is what results.json records of the replay in a cell of op.
func (rp *Replay) cell(op Op, recordedMisses int64) *results.CellTrace {
	if rp == nil {
		return nil
	}
	c := &results.CellTrace{File: rp.Info.File, Format: rp.Info.Format, Window: rp.Info.Window(),
		Speed: rp.Info.Speed.String(), Loop: rp.Loop}
	if op == OpGet {
		c.RecordedMisses = recordedMisses
	}
	return c
}

// replayErr is what ended the cell's replay early: a malformed line or a
// failed read, naming the file and line; nil otherwise.
func (r *runner) replayErr() error {
	if r.replay == nil {
		return nil
	}
	return r.replay.err
}

// validateTrace lists what a replay cannot run with.
func (c *Config) validateTrace() []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Trace.Speed < 0 {
		bad("trace speed %g: want above 0, or 0 for as fast as the load allows", c.Trace.Speed)
	}
	if c.Load.Mode != "closed" {
		bad("load.mode %q: a replay takes its pace from the trace (trace speed)", c.Load.Mode)
	}
	if c.Verify {
		bad("verify: a replay's keys are no worker's own")
	}
	if c.ranks() > 1 {
		bad("ranks %d: a trace is replayed by one load generator", c.Ranks)
	}
	if len(c.ValueSizes) != 1 {
		bad("values: %d value sizes with a trace, want one, which names its cells", len(c.ValueSizes))
	}
	return errs
}
