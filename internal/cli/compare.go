package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/compare"
	"github.com/kvbench/kvbench/internal/results"
)

func init() { register(newCompareCmd) }

func newCompareCmd() *cobra.Command {
	var (
		format    string
		failPct   float64
		minEffect float64
	)
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two runs cell by cell and flag changes beyond the noise",
		Long: `compare matches the cells of runs A (baseline) and B on op, value size,
threshold and protocol and prints the change of p50, p99 and throughput.
A change is marked significant (*) when the 95% confidence intervals of
the two runs do not overlap (order-statistic intervals from each cell's
HdrHistogram for percentiles, per-interval rates for throughput) and it
is at least --min-effect. See docs/COMPARE.md.

With --fail-on-regression PCT, compare exits with status 3 when any
significant regression is worse than PCT percent.`,
		Example: `  kvbench compare results/base results/latest
  kvbench compare results/base results/latest --fail-on-regression 10 --min-effect 5
  kvbench compare --format json results/base results/latest > change.json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("fail-on-regression") && failPct < 0 {
				return fmt.Errorf("--fail-on-regression %g: want a percentage >= 0", failPct)
			}
			a, dirA, err := results.Open(args[0])
			if err != nil {
				return err
			}
			b, dirB, err := results.Open(args[1])
			if err != nil {
				return err
			}
			res, err := compare.Compare(a, b, compare.Options{MinEffect: minEffect / 100, DirA: dirA, DirB: dirB})
			if err != nil {
				return err
			}
			if err := res.Write(cmd.OutOrStdout(), format); err != nil {
				return err
			}
			if !cmd.Flags().Changed("fail-on-regression") {
				return nil
			}
			if err := res.Check(failPct); err != nil {
				var re *compare.RegressionError
				if errors.As(err, &re) {
					return &ExitError{Code: 3, Err: err}
				}
				return err
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "table", "output format: "+strings.Join(compare.Formats, ", "))
	fl.Float64Var(&failPct, "fail-on-regression", 0, "exit with status 3 if a significant regression exceeds this percentage")
	fl.Float64Var(&minEffect, "min-effect", 100*compare.DefaultMinEffect, "smallest change in percent that can be significant")
	return cmd
}
