package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/tune/tunebench"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/internal/workload"
)

// config is the tuning plan for w and the flags, checked; a plan that
// cannot decide anything is warned about on stderr.
func (f *tuneFlags) config(cmd *cobra.Command, w *workload.Workload, stderr io.Writer) (tune.Config, error) {
	p := tunebench.Plan{Ops: f.ops, CPUSide: f.cpuSide, SLO: f.slo,
		Connections: f.lists.conns, Depths: f.lists.depths, Rates: f.lists.rates}
	// Only flags the user gave are asked for; the rest are tune's defaults.
	set := cmd.Flags().Changed
	if set("repeats") {
		p.Repeats = &f.repeats
	}
	if set("alpha") {
		p.Alpha = &f.alpha
	}
	if set("objective") {
		p.Objective = &f.objective
	}
	if set("adaptive") {
		p.Adaptive = &f.adaptive
	}
	if f.maxMemory != "" {
		n, err := units.ParseBytes(f.maxMemory)
		if err == nil && n <= 0 {
			err = errors.New("want a positive size")
		}
		if err != nil {
			return tune.Config{}, fmt.Errorf("--max-memory %s: %w", f.maxMemory, err)
		}
		p.MaxMemory = n
	}
	p.Predict = f.predict
	cfg, warnings, err := p.Config(w)
	for _, msg := range warnings {
		fmt.Fprintf(stderr, "kvbench tune: warning: %s\n", msg)
	}
	return cfg, err
}
