package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/internal/workload"
)

// recordFlags are trace record's flags.
type recordFlags struct {
	out   string
	seed  uint64
	ops   int64
	dur   time.Duration
	rate  float64
	force bool
}

func newTraceRecordCmd() *cobra.Command {
	var f recordFlags
	cmd := &cobra.Command{
		Use:   "record WORKLOAD -o FILE",
		Short: "Write the operations a workload issues as a kvbench trace, without a server",
		Long: `record writes to FILE, in the kvbench format (zstd-compressed when FILE ends
in .zst), the operations kvbench run WORKLOAD issues in the measure phase
of its first cell (the smallest threshold and value size) for the
workload's seed: the same workers draw the same ops, keys and value sizes
from the same random streams, without a server. Each line's time is the
operation's intended start in the open-loop schedule, from the measure
phase's start, and the lines come in the schedule's order (slot g is
worker g mod connections x depth's), the order a run that keeps up issues
them in. A get's value_size is the size of the value last written to its
key in that order (the preload's before any, 0 once deleted or without a
preload): what it finds.

A closed loop issues each operation when the last completes, so its
operations have no times: give --rate R to record them as an open loop at
R ops/s would issue them (its workers draw the same operations in the
same round-robin order). --rate also re-times an open loop. The warmup is
not recorded, but what it draws counts: after it, drawn value sizes are
numbered on from its sets, as in a run (a closed loop's warmup, which runs
for a time, is taken at --rate).

--seed, --ops and --duration replace the workload's seed and measure
phase. The trace is written as it is made and moved into place at the
end; an existing FILE is kept unless --force.`,
		Example: `  kvbench trace record workloads/open-loop-latency.yaml -o open.csv.zst
  kvbench trace record workloads/ycsb-a.yaml --rate 50000 --ops 1000000 -o ycsb-a.csv.zst
  kvbench trace stats open.csv.zst`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return record(cmd, args[0], &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "", "trace file to write (.zst: zstd-compressed)")
	fl.Uint64Var(&f.seed, "seed", 0, "seed for every random choice, replacing the workload's")
	fl.Int64Var(&f.ops, "ops", 0, "record this many operations, replacing the workload's phases.measure")
	fl.DurationVar(&f.dur, "duration", 0, "record this much schedule time, replacing the workload's phases.measure")
	fl.Float64Var(&f.rate, "rate", 0, "time the operations as an open loop at this many ops/s (needed for a closed loop)")
	fl.BoolVar(&f.force, "force", false, "overwrite FILE")
	cmd.MarkFlagRequired("out")
	cmd.MarkFlagsMutuallyExclusive("ops", "duration")
	return cmd
}

// record writes the trace of file's workload as f asks.
func record(cmd *cobra.Command, file string, f *recordFlags) error {
	if err := refuseOverwrite(f.force, f.out); err != nil {
		return err
	}
	w, err := recordWorkload(cmd, file, f)
	if err != nil {
		return err
	}
	cfg := bench.FromWorkload(w)
	seq, err := bench.NewSequence(cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	tw, err := trace.Create(f.out)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	for o, ok := seq.Next(); ok; o, ok = seq.Next() {
		err = tw.Write(int64(o.Time), o.Op, o.Key, o.ValueSize)
		if err == nil && tw.Count()%(1<<16) == 0 && ctx != nil {
			err = ctx.Err()
		}
		if err != nil {
			tw.Abort()
			return fmt.Errorf("%s: %w", f.out, err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("%s: %w", f.out, err)
	}
	values := fmt.Sprintf("value size %d", cfg.ValueSizes[0])
	if cfg.SizesSpec != "" {
		values = "value sizes " + cfg.SizesSpec
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %s, the measure phase of threshold %d, %s, seed %d\n",
		f.out, units.Plural(tw.Count(), "request"), cfg.Thresholds[0], values, cfg.Seed)
	return nil
}

// recordWorkload loads file with f's replacements, an open loop.
func recordWorkload(cmd *cobra.Command, file string, f *recordFlags) (*workload.Workload, error) {
	w, err := workload.LoadFile(file)
	if err != nil {
		return nil, err
	}
	o := workload.Overrides{}
	fl := cmd.Flags()
	if fl.Changed("seed") {
		o["seed"] = f.seed
	}
	if fl.Changed("duration") {
		o["duration"] = f.dur
	}
	if fl.Changed("rate") {
		o["rate"] = f.rate
	}
	w.ApplyOverrides(o)
	if fl.Changed("ops") {
		if f.ops <= 0 {
			return nil, fmt.Errorf("--ops %d: want a count above 0", f.ops)
		}
		w.Phases.Measure = workload.Phase{Ops: f.ops}
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if w.Load.Mode != "open" {
		return nil, errors.New(file + ": load.mode " + w.Load.Mode + " issues each operation when the last completes, " +
			"so its operations have no times: give --rate R to record them as an open loop at R ops/s would")
	}
	return w, nil
}
