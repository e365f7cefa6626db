package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
)

func init() { register(newReportCmd) }

func newReportCmd() *cobra.Command {
	var format, out string
	var phases, spread, bySize, steps bool
	cmd := &cobra.Command{
		Use:   "report RESULTS_DIR",
		Short: "Print a run's cells as a table, markdown, CSV or JSON",
		Long: `report reads RESULTS_DIR/results.json (or a results.json path) and prints
the store measured (rdmakv, or redis or memcached with the server's
version) and one row per cell: op, value size, threshold ("-" for redis
and memcached, which have none), protocol (a baseline's after its store,
"redis eager"; csv and json have the store in a field of its own), count, errors
(failed operations; a miss, not_found, is an answer and not one),
throughput, latency percentiles and, for a run that measured it, CPU time
per operation of the cell's measure phase: the client's (cpu_c) and the
server's (cpu_s), or "proc" where the server ran inside kvbench and cpu_c
is the whole process's. table and markdown are for people (units scaled);
csv and json keep raw numbers (nanoseconds, bytes/s). summary is the
table kvbench run printed (summary.txt): the cells in the order they ran,
misses beside errors. Cells of rdmakv carry the memory verbs registers to
receive at their threshold and load (rmem_s the server's, rmem_c the
clients'; over tcp what verbs would register). A run whose value sizes
follow a distribution ends its table and csv (json under "whole") with
the whole workload of each threshold, op and protocol "all": every op and
protocol of the threshold as one (leave them out before summing rows).
With --phases it prints where each cell's time went instead: the p50 of
each phase (client, network, server, and the rendezvous steps) of a run
recorded with --phases. With --spread it prints, for every (op, value size,
protocol) measured at two or more thresholds, the spread of its p50
across them: the threshold does not change a protocol's path, so a wide
spread says some of those cells are not to be trusted. With --by-size
it prints, for each op and threshold of a run whose value sizes follow a
distribution, a table of size class by protocol: count, share of the
requests and of the bytes, p50 and p99, with the protocols' shares and any
warning that the sizes sent are off the distribution (every format but
summary). With --steps it splits each cell of an open-loop ramp
(load.ramp) by the steps of its ramp, from its interval log: per step and
rate, each cell's count, ops/s and latency percentiles and, for a mixed
run, each threshold's whole workload, so that the thresholds (and the
adaptive policy) can be set side by side at every rate the ramp held.

--format html writes the run as one self-contained page (figures as
inline SVG, no scripts, fonts or fetches; it prints, and its tables
paste into a spreadsheet): what ran, the answer (where rendezvous
overtakes eager in a sweep, the best threshold of a mixed workload's
whole workload), the cells with their warnings and checks (the figures
of a cell not to be trusted marked !), the figures kvbench plot draws,
the phases when recorded, and links to results.json and the interval
logs. With a view flag, html is that view's table on a page. -o FILE
writes any format to FILE instead of stdout; an html page's links are
relative to FILE's directory.`,
		Example: `  kvbench report results/latest
  kvbench report results/latest --format csv > cells.csv
  kvbench report results/latest --phases
  kvbench report results/latest --spread
  kvbench report results/latest --by-size
  kvbench report results/latest --steps
  kvbench report results/latest --format html -o run.html
  kvbench report results/quickstart-20261125-074413/results.json --format markdown`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			run, dir, err := results.Open(args[0])
			if err != nil {
				return err
			}
			if chosen(phases, spread, bySize, steps) > 1 {
				return errors.New("--phases, --spread, --by-size and --steps: choose one")
			}
			return writeOut(cmd.OutOrStdout(), out, func(w io.Writer) error {
				switch {
				case steps:
					return report.WriteSteps(w, run, dir, format)
				case bySize:
					return report.WriteBySize(w, run, format)
				case spread:
					return report.WriteSpread(w, run, format)
				case phases:
					return report.WritePhases(w, run, format)
				case format == "html":
					return report.WritePage(w, run, report.Site{RunDir: dir, PageDir: filepath.Dir(out)})
				}
				return report.Write(w, run, format)
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "output format: "+strings.Join(report.Formats, ", "))
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to this file instead of stdout (any format; an html page links the run's files relative to it)")
	cmd.Flags().BoolVar(&phases, "phases", false, "print each cell's phases (a run with op_phases or --phases): p50 per phase in table and markdown; count, p50, p90, p99 and max per phase in csv and json")
	cmd.Flags().BoolVar(&bySize, "by-size", false, "print, per op and threshold of a mixed run (values.distribution), its operations by value size class and protocol")
	cmd.Flags().BoolVar(&steps, "steps", false, "print, per step of an open-loop ramp (load.ramp), each cell's count, ops/s and latency at the step's rate")
	cmd.Flags().BoolVar(&spread, "spread", false, "print, per (op, value size, protocol) measured at several thresholds, the spread of p50 across them")
	return cmd
}

// writeOut runs write into the file out, or into stdout when out is
// empty. A file is written whole or not at all: it is removed when write
// fails.
func writeOut(stdout io.Writer, out string, write func(io.Writer) error) error {
	if out == "" {
		return write(stdout)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(out)
	}
	return err
}

// chosen counts the flags set.
func chosen(flags ...bool) int {
	n := 0
	for _, f := range flags {
		if f {
			n++
		}
	}
	return n
}
