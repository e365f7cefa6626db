package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/merge"
	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
)

func init() { register(newMergeCmd) }

func newMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge RESULTS_DIR...",
		Short: "Merge the results of one workload run from several hosts into one run",
		Long: `merge combines the results directories of the ranks of one run, made
separately (kvbench run --rank I --ranks N on each host, or under srun,
mpirun or a Kubernetes indexed job, which set the rank), into one results
directory: per cell the HdrHistograms are added exactly, counts and
errors summed, throughput is the sum of the ranks', phases are merged,
and the interval logs hold the ranks' intervals added second by second.
results.json's ranks block keeps each rank's host, count, p50, p99,
errors and throughput, so a slow client host stands out.

It refuses runs whose workloads differ (naming the field), runs not made
as ranks, runs of different rank counts and a rank given twice; it warns
when ranks are missing or the runs' measure windows do not overlap.`,
		Example: `  kvbench merge results/ycsb-a-rank0-* results/ycsb-a-rank1-* results/ycsb-a-rank2-*
  kvbench merge host1/results/latest host2/results/latest -o merged`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			parts := make([]merge.Part, 0, len(args))
			for _, a := range args {
				run, dir, err := results.Open(a)
				if err != nil {
					return err
				}
				parts = append(parts, merge.Part{Run: run, Dir: dir})
			}
			run, cells, warnings, err := merge.Runs(parts)
			if err != nil {
				return err
			}
			for _, w := range warnings {
				fmt.Fprintf(cmd.ErrOrStderr(), "kvbench merge: warning: %s\n", w)
			}
			name := report.WorkloadName(run)
			if name == "" {
				name = "run"
			}
			dir, err := results.WriteRun(out, name+"-merged", run, cells, report.WriteSummary)
			if err != nil && !errors.Is(err, results.ErrLatest) {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), dir)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", results.DefaultParent, "directory to create the merged run's directory in")
	return cmd
}
