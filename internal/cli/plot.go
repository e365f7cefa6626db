package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
)

func init() { register(newPlotCmd) }

func newPlotCmd() *cobra.Command {
	opt := plot.Options{}
	var formats string
	cmd := &cobra.Command{
		Use:   "plot RESULTS_DIR [RESULTS_DIR...]",
		Short: "Draw throughput, latency, percentile and timeline charts of a run, or overlay several runs",
		Long: `plot reads RESULTS_DIR/results.json and the interval logs next to it and
writes PNG and SVG charts into the output directory:

  throughput-ops-OP, throughput-mib-OP   throughput against value size
  latency-OP                             p50, p99, p99.9 against value size
  cpu-OP                                 CPU time per operation against value
                                         size, client (or process) and server,
                                         eager beside rendezvous
  phases-OP                              p50 of each phase per value size, eager
                                         beside rendezvous (runs with --phases)
  percentiles-OP-SIZE                    latency by percentile (HdrHistogram style)
  timeline-OP-SIZE                       throughput and p99 per interval

A run whose value sizes follow a distribution (values.distribution) adds,
DIST being the distribution's spec in letters, digits and dashes:

  size-classes-OP-DIST                   p50 and p99 by value size class, one
                                         line per threshold
  whole-workload-DIST                    the whole workload (every op and
                                         protocol) against the threshold: p50,
                                         p99, ops/s, CPU per operation and
                                         registered receive memory, the best
                                         threshold by p50, p99 and ops/s marked

Value size axes are log2, latency axes log10; dashed vertical lines mark
the eager thresholds (sizes left of a line went eager, right of it
rendezvous). A run of redis or memcached, which have no threshold, draws
one line per figure, named by the store.

With two or more run directories plot overlays the runs instead, per op:

  compare-throughput-ops-OP, compare-throughput-mib-OP
                                         throughput against value size
  compare-latency-p50-OP                 p50 against value size
  compare-whole-workload-DIST            runs of a size distribution: the
                                         whole workload's p50, p99 and ops/s
                                         against the threshold, a baseline
                                         store's run level across it

One line per run and protocol (or threshold), one colour per run. Runs are
labelled by what differs between them: "4 conn" when they differ in
connections, else "depth 8", else the directory's base name. A run that
forced each protocol in its own cells (thresholds 0 and above the largest
size, as workloads/connections-sweep.yaml does) draws eager solid and
rendezvous dashed: "4 conn eager", "4 conn rendezvous". Runs of different
workloads or transports are drawn but warned about on stderr.

Runs of different kinds of store (rdmakv, redis, memcached) of one
workload are labelled by the store instead, "redis 7.0.15", "rdmakv tcp",
"rdmakv verbs", and add compare-latency-p99-OP. A store measured at one
threshold, as every baseline is, draws one line; an rdmakv run of several
thresholds draws one per threshold, "rdmakv tcp 4KiB". Runs that differ in
anything but the target and thresholds, load included, are warned about.
--percentiles and --timelines apply to a single run only.

A tune's directory (one holding tune.json) is drawn as kvbench tune drew
it: each op's crossover chart, its phase bars and, with several loads,
its map of winners.

--trusted-only draws only what passed every check (docs/TRUST.md): a
cell, or a tune's point whose repetitions include one, that failed a
check is left out of every figure, and each figure's caption says how
many it left out ("trusted cells only, 3 untrusted cells left out").
Without it a tune map's untrusted tile is drawn grey and crossed.`,
		Example: `  kvbench plot results/latest
  kvbench plot results/connections-sweep/connections-sweep-* -o plots/connections-sweep`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, f := range strings.Split(formats, ",") {
				if f = strings.TrimSpace(f); f != "" {
					opt.Formats = append(opt.Formats, f)
				}
			}
			if len(args) > 1 {
				return plotRuns(cmd, args, opt)
			}
			if res, ok, err := openTune(args[0]); ok || err != nil {
				if err != nil {
					return err
				}
				paths, err := plot.SaveTuneWith(res, opt)
				return written(cmd, "skipped", paths, nil, err)
			}
			run, dir, err := results.Open(args[0])
			if err != nil {
				return err
			}
			paths, warnings, err := plot.SaveAll(run, dir, opt)
			return written(cmd, "skipped", paths, warnings, err)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opt.OutDir, "out", "o", "plots", "directory the images are written to")
	fl.StringVar(&formats, "format", "png,svg", "comma-separated image formats: png, svg")
	fl.IntVar(&opt.WidthPx, "width", plot.DefaultWidthPx, "image width in pixels")
	fl.IntVar(&opt.HeightPx, "height", plot.DefaultHeightPx, "image height in pixels")
	fl.BoolVar(&opt.Percentiles, "percentiles", true, "draw a percentile distribution per op and value size")
	fl.BoolVar(&opt.Timelines, "timelines", true, "draw throughput and p99 over time per op and value size")
	fl.BoolVar(&opt.TrustedOnly, "trusted-only", false, "leave out of every figure the cells (a tune's points) that failed a check, each caption saying how many")
	return cmd
}

// openTune reads the tune in dir's tune.json; ok is false when there is
// none to read (a run's directory, or a file), for results.Open to try.
func openTune(dir string) (res *tune.Result, ok bool, err error) {
	path := filepath.Join(dir, tuneJSONFile)
	if _, err := os.Stat(path); err != nil {
		return nil, false, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, true, err
	}
	res = &tune.Result{}
	if err := json.Unmarshal(b, res); err != nil {
		return nil, true, fmt.Errorf("%s: %w", path, err)
	}
	return res, true, nil
}

// plotRuns overlays several runs (plot with two or more directories).
func plotRuns(cmd *cobra.Command, args []string, opt plot.Options) error {
	var runs []plot.RunDir
	for i, a := range args {
		run, dir, err := results.Open(a)
		if err != nil {
			return fmt.Errorf("run %d of %d: %w", i+1, len(args), err)
		}
		runs = append(runs, plot.RunDir{Run: run, Dir: dir})
	}
	paths, warnings, err := plot.SaveCompare(runs, opt)
	return written(cmd, "warning", paths, warnings, err)
}

// written prints each warning on stderr under kind, then, unless err, the
// files written on stdout.
func written(cmd *cobra.Command, kind string, paths []string, warnings []error, err error) error {
	for _, w := range warnings {
		fmt.Fprintf(cmd.ErrOrStderr(), "kvbench plot: %s: %v\n", kind, w)
	}
	if err != nil {
		return err
	}
	for _, p := range paths {
		fmt.Fprintln(cmd.OutOrStdout(), p)
	}
	return nil
}
