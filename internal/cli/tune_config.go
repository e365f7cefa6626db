package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/workload"
)

// config is the tuning plan for w and the flags, checked; a repeat count
// too small to ever decide is warned about on stderr.
func (f *tuneFlags) config(cmd *cobra.Command, w *workload.Workload, stderr io.Writer) (tune.Config, error) {
	cfg := tune.Config{Ops: tuneOps(f.ops, w.Mix), Repeats: f.repeats, Alpha: f.alpha, KeySize: w.Keys.Size,
		CPUSide: f.cpuSide, Measure: time.Duration(w.Phases.Measure.Duration).Seconds()}
	for _, s := range w.ValueSizes() {
		cfg.Sizes = append(cfg.Sizes, int(s))
	}
	var errs []error
	if f.slo != "" {
		slo, err := tune.ParseSLO(f.slo)
		errs = append(errs, err)
		cfg.SLO = slo
		if !cmd.Flags().Changed("repeats") {
			cfg.Repeats = 1 // a capacity search is long: one unless asked
		}
	}
	if f.slo == "" || cmd.Flags().Changed("objective") {
		cfg.Objective = tune.Objective(f.objective)
	}
	loads, err := f.loads(w)
	errs = append(errs, err)
	cfg.Loads = loads
	if f.alpha == 0 {
		errs = append(errs, errors.New("--alpha 0: want a significance level in (0, 0.5)"))
	}
	errs = append(errs, cfg.Validate(), checkMinOps(w, cfg))
	if err := errors.Join(errs...); err != nil {
		return cfg, err
	}
	if n := stats.SignTestMinN(f.alpha); cfg.SLO == nil && f.repeats < n {
		fmt.Fprintf(stderr, "kvbench tune: warning: with --repeats %d no size can show a significant winner at --alpha %g; use %d or more\n",
			f.repeats, f.alpha, n)
	}
	return cfg, nil
}

// loads are the loads to compare at: every combination of the listed
// connections, depths and rates, each list defaulting to the workload's.
func (f *tuneFlags) loads(w *workload.Workload) ([]tune.Load, error) {
	if w.Load.Ramp != nil {
		return nil, errors.New("load.ramp: tune compares at fixed loads; give --rate RATES, or a closed loop")
	}
	conns, depths, rates := f.lists.conns, f.lists.depths, f.lists.rates
	if len(conns) == 0 {
		conns = []int{w.Load.Connections}
	}
	if len(depths) == 0 {
		depths = []int{w.Load.Depth}
	}
	if len(rates) == 0 && w.Load.Mode == "open" {
		rates = []float64{w.Load.Rate}
	}
	return tune.Loads(conns, depths, rates), nil
}

// checkMinOps refuses, before anything is measured, a measure phase
// counted in fewer operations than the compared percentile needs.
func checkMinOps(w *workload.Workload, cfg tune.Config) error {
	n := cfg.MinOps()
	if ops := w.Phases.Measure.Ops; cfg.SLO == nil && n > 0 && ops > 0 && ops < n {
		return fmt.Errorf("phases.measure.ops %d: a %s tune can compare needs at least %d operations per measurement (%d beyond the percentile)",
			ops, cfg.Objective, n, tune.TailSamples)
	}
	return nil
}

// tuneOps is --ops, or the ops the workload's mix issues.
func tuneOps(flag string, mix workload.Mix) []string {
	var ops []string
	if flag != "" {
		for _, op := range strings.Split(flag, ",") {
			if op = strings.TrimSpace(op); op != "" {
				ops = append(ops, op)
			}
		}
		return ops
	}
	if mix.Get > 0 {
		ops = append(ops, "get")
	}
	if mix.Set > 0 {
		ops = append(ops, "set")
	}
	if len(ops) == 0 {
		ops = []string{"get", "set"}
	}
	return ops
}
