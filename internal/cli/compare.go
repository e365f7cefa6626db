package cli

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
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
		alpha     float64
		strict    bool
		out       string
	)
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two sets of runs cell by cell and flag changes beyond the run-to-run noise",
		Long: `compare matches the cells of A (baseline) and B on op, value size,
threshold and protocol and prints the change of p50, p99 and throughput,
and beside them, never judged, of CPU time per operation (cpu_c, cpu_s)
and registered receive memory (rmem_s, rmem_c). Runs whose value sizes
follow a distribution also compare the whole workload of each threshold
(op and protocol "all") as a cell, and below the table each size class's
p50 and p99, never in the verdict ("?" where a side has fewer than 100
operations in the class).
A and B are each a results directory or a directory of several runs of one
workload (what kvbench run --repeat N -o DIR leaves). When A and B measured
different kinds of store (rdmakv, redis, memcached), cells are matched on
op and value size alone, each rdmakv threshold's cell beside the baseline's,
and a note under the table says what each side measured.

With two or more runs a side, a change is significant (*) when a
Mann-Whitney U test over the runs' figures says the sides differ (p at
most --alpha after Holm's adjustment over every cell and metric of the
comparison, so an A/A comparison flags nothing 95% of the time) and it is
at least --min-effect. Interleave the runs of the two sides (A, B, A, B,
...) on a shared machine. With one run on a side, run-to-run noise is
unknown: only changes of 20% or more beyond the within-run confidence
intervals are marked. See docs/COMPARE.md for how many runs to make.

A cell either side of which failed a check of its trustworthiness
(docs/TRUST.md: stationarity, precision, ...) is marked "!" and its
failed checks are listed under the table.

--format html writes the comparison as one self-contained page (figures
inline as SVG, no scripts or fetches; it prints and pastes as tables):
what the two sides are (runs, workloads, targets, builds, hosts, seeds),
the differences with the cells of a significant change first and
untrusted cells marked, the figures kvbench plot A B draws of the latest
run of each side, and links to each run's results.json relative to the
page. -o FILE writes any format to FILE instead of stdout.

With --fail-on-regression PCT, compare exits with status 3 when any
significant regression is worse than PCT percent, leaving out those of
cells marked "!" unless --strict is given.`,
		Example: `  kvbench run workloads/quickstart.yaml --repeat 5 -o base   # then, with the change:
  kvbench run workloads/quickstart.yaml --repeat 5 -o cand
  kvbench compare base cand --fail-on-regression 10
  kvbench compare base cand --fail-on-regression 10 --strict
  kvbench compare results/base results/latest --min-effect 5
  kvbench compare --format json base cand > change.json
  kvbench compare base cand --format html -o change.html`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("fail-on-regression") && failPct < 0 {
				return fmt.Errorf("--fail-on-regression %g: want a percentage >= 0", failPct)
			}
			a, err := compare.LoadSide(args[0])
			if err != nil {
				return err
			}
			b, err := compare.LoadSide(args[1])
			if err != nil {
				return err
			}
			res, err := compare.CompareRuns(a, b, compare.Options{MinEffect: minEffect / 100}, alpha)
			if err != nil {
				return err
			}
			if err := writeComparison(cmd, res, a, b, format, out); err != nil {
				return err
			}
			if !cmd.Flags().Changed("fail-on-regression") {
				return nil
			}
			if err := res.Check(failPct, strict); err != nil {
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
	fl.BoolVar(&strict, "strict", false, "with --fail-on-regression, fail also on regressions of cells that failed a check")
	fl.Float64Var(&alpha, "alpha", compare.DefaultAlpha, "significance level over the whole comparison (several runs a side)")
	fl.StringVarP(&out, "out", "o", "", "write the comparison to this file instead of stdout")
	return cmd
}

// writeComparison writes res in format to out, or to stdout when out is
// empty; a page links the runs' files relative to where it is written.
func writeComparison(cmd *cobra.Command, res *compare.Result, a, b []compare.Run, format, out string) error {
	pageDir := "."
	if out != "" {
		pageDir = filepath.Dir(out)
	}
	var buf bytes.Buffer
	var err error
	if format == "html" {
		err = res.WriteHTML(&buf, a, b, pageDir)
	} else {
		err = res.Write(&buf, format)
	}
	if err != nil {
		return err
	}
	if out != "" {
		return results.WriteFileAtomic(out, buf.Bytes())
	}
	_, err = cmd.OutOrStdout().Write(buf.Bytes())
	return err
}
