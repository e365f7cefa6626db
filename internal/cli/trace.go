package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/internal/units"
)

func init() { register(newTraceCmd) }

func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "trace",
		Short: "Inspect, check and record request traces (Twitter's, kvbench's)",
		Long: `trace reads recorded key-value request traces, plain or zstd-compressed,
in one streaming pass whatever their size: Twitter's production cache
traces (--format twitter, github.com/twitter/cache-trace) or kvbench's own
CSV (--format kvbench: a header "time_ns,op,key,value_size", then one request
a line); by default (--format auto) the header line tells them apart.
docs/USAGE.md describes both formats and where to get Twitter's.
stats can fit a workload to a trace; record writes a workload's
operations as a trace.`,
		Example: `  kvbench trace stats workloads/traces/twitter-synthetic.csv.zst
  kvbench trace validate cluster52.0.zst --format twitter
  kvbench trace stats cluster52.0.zst --workload cluster52.yaml
  kvbench trace record workloads/open-loop-latency.yaml -o open.csv.zst`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newTraceStatsCmd(), newTraceValidateCmd(), newTraceRecordCmd())
	return cmd
}

func formatFlag(cmd *cobra.Command, format *string) {
	cmd.Flags().StringVar(format, "format", string(trace.Auto), "trace format: "+strings.Join(trace.FormatNames(), ", ")+" (auto: kvbench's when the file starts with its header line, else twitter)")
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(trace.FormatNames(), cobra.ShellCompDirectiveNoFileComp))
}

func newTraceStatsCmd() *cobra.Command {
	var format, fitOut string
	var asJSON, force bool
	cmd := &cobra.Command{
		Use:   "stats FILE",
		Short: "Summarise a trace: op mix, sizes, request rate, key popularity",
		Long: `stats reads FILE once and prints its request count and duration, the op mix
(get, set, delete), key and value size percentiles, the request rate per
second (min, median, max, and a coarse series over the trace), the number
of distinct keys, the most requested keys and a fitted Zipf exponent.
Memory stays bounded on any trace: distinct keys are counted exactly up to
2^20 and estimated (HyperLogLog) beyond, and the most requested keys are
tracked by Space-Saving over 2^16 counters. Malformed lines are skipped,
counted and reported, and then the exit status is 1 (kvbench trace
validate lists them). --json prints the same as JSON.

--workload OUT.yaml also writes a synthetic workload fitted to the trace,
which stands in for it where the trace cannot go: the op mix; keys.count
the distinct keys (at most 10 million), drawn zipfian with the fitted
exponent as zipfian_constant (clamped into [0.01, 0.99], uniform when no
exponent fits); keys.size the median key size; the value sizes of the
sets (of the gets that found a value, when there is no set) as a histogram
of at most 328 rows, written beside it as OUT.sizes.csv; and an open loop
at the trace's median requests a second (the mean when most seconds are
empty) for the trace's span. Comments in it say what was approximated.
Existing files are kept unless --force.`,
		Example: `  kvbench trace stats workloads/traces/twitter-synthetic.csv.zst
  kvbench trace stats cluster52.0.zst --json > cluster52.json
  kvbench trace stats mytrace.csv
  kvbench trace stats cluster52.0.zst --workload cluster52.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := trace.ParseFormat(format)
			if err != nil {
				return fmt.Errorf("--format: %w", err)
			}
			if fitOut != "" {
				if err := refuseOverwrite(force, fitOut, sizesPath(fitOut)); err != nil {
					return fmt.Errorf("--workload: %w", err)
				}
			}
			s, err := trace.Stats(args[0], f)
			if err != nil {
				return err
			}
			if fitOut != "" {
				paths, err := writeFitted(s, fitOut, force)
				if err != nil {
					return fmt.Errorf("--workload: %w", err)
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", strings.Join(paths, " and "))
			}
			if asJSON {
				err = s.WriteJSON(cmd.OutOrStdout())
			} else {
				err = s.WriteText(cmd.OutOrStdout())
			}
			if err == nil && s.Problems > 0 {
				err = fmt.Errorf("%s: %s skipped (kvbench trace validate lists them)", args[0], units.Plural(s.Problems, "malformed line"))
			}
			return err
		},
	}
	formatFlag(cmd, &format)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&fitOut, "workload", "", "also write a workload fitted to the trace to this YAML file, its value sizes beside it")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite the files --workload names")
	return cmd
}

// validateShown is how many problems trace validate lists.
const validateShown = 20

func newTraceValidateCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "validate FILE",
		Short: "Check every line of a trace and list the problems as file:line",
		Long: fmt.Sprintf(`validate reads FILE to its end and prints its first %d problems as
FILE:LINE: message, then how many there are in all; a file without
problems prints "FILE: ok, N requests". The exit status is non-zero if
there is any problem.`, validateShown),
		Example: `  kvbench trace validate workloads/traces/twitter-synthetic.csv.zst
  kvbench trace validate mytrace.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := trace.ParseFormat(format)
			if err != nil {
				return fmt.Errorf("--format: %w", err)
			}
			p, err := trace.Validate(args[0], f, validateShown)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if p.Count == 0 {
				fmt.Fprintf(out, "%s: ok, %d requests\n", args[0], p.Records)
				return nil
			}
			fmt.Fprint(out, p.Text())
			return fmt.Errorf("%s: %s (%s)", args[0], units.Plural(p.Count, "problem"), units.Plural(p.Records, "well-formed request"))
		},
	}
	formatFlag(cmd, &format)
	return cmd
}
