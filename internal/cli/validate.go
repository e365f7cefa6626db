package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/internal/workload"
)

func init() { register(newValidateCmd) }

func newValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check workload files and list every problem with its file:line",
		Long: fmt.Sprintf(`validate decodes each workload file strictly (unknown fields, wrong types,
impossible values, duplicates), applies defaults and reports every problem
as FILE:LINE:COL: field: message. A workload that replays a trace has
the whole trace read too, and its first %d problems listed as
TRACE:LINE: message, then how many more there are. A file without
problems prints "FILE: ok". The exit status is non-zero if any file has
a problem.`, bench.ScanShown),
		Example: `  kvbench validate workloads/*.yaml
  kvbench validate my-sweep.yaml && kvbench run my-sweep.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := 0
			for _, path := range args {
				w, err := workload.LoadFile(path)
				if err == nil {
					err = validateTrace(w)
				}
				if err != nil {
					bad++
					fmt.Fprintln(cmd.OutOrStdout(), err)
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: ok\n", path)
			}
			if bad > 0 {
				return errors.New(countFiles(bad) + " with problems")
			}
			return nil
		},
	}
}

func countFiles(n int) string {
	if n == 1 {
		return "1 workload file"
	}
	return fmt.Sprintf("%d workload files", n)
}

// validateTrace reads the whole trace w replays, if any, as run would
// meet it: its problems, each at its line, the first bench.ScanShown of
// them listed.
func validateTrace(w *workload.Workload) error {
	t := w.Trace
	if t == nil {
		return nil
	}
	p, err := trace.Validate(t.Path(), trace.Format(t.Format), bench.ScanShown)
	if err != nil {
		return err
	}
	if p.Count == 0 {
		return nil
	}
	return fmt.Errorf("%s%s: %s", p.Text(), t.Path(), units.Plural(p.Count, "problem"))
}
