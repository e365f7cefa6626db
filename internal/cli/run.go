package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/merge"
	"github.com/kvbench/kvbench/internal/mpi"
	"github.com/kvbench/kvbench/internal/progress"
	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/workload"
	_ "github.com/kvbench/kvbench/rdmakv/tcp"   // the TCP transport
	_ "github.com/kvbench/kvbench/rdmakv/verbs" // the RDMA verbs transport (cgo, libibverbs)
)

func init() { register(newRunCmd) }

type runFlags struct {
	workloadFlags
	out         string
	quiet       bool
	rank, ranks int
	repeat      int
	metrics     string
	mon         *runMetrics
}

// harnessCostTime is how long run measures the harness's own cost for
// (bench.MeasureCost): long enough for a few hundred thousand no-op
// operations, short beside any cell. Tests set it to 0, which skips it.
var harnessCostTime = 150 * time.Millisecond

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run WORKLOAD.yaml",
		Short: "Run a workload and write its results directory",
		Long: `Run replays a workload against an rdmakv server, one cell per eager
threshold and value size (with values.distribution, one per threshold,
each operation drawing its value's size and taking eager or rendezvous by
it): each cell preloads the keys, warms up without recording, then
measures. By default (order: interleaved) each value size
runs at every threshold back to back, each cell on connections dialed for
it, so a host whose speed drifts over the run slows every threshold alike;
--order thresholds runs each threshold's sizes in a row on one set of
connections. Either way a seed gives each cell the same operations.
A workload with a trace section replays the trace's window in each cell
instead, at its recorded pace or faster (workloads/README.md, "trace").
Latencies go into HdrHistograms per (operation, protocol) in nanoseconds;
open-loop runs measure each operation from its intended start, so stalls
are not hidden (coordinated omission).
Each measure phase also records this process's CPU time per operation
(getrusage, read before and after the phase).

Without target.server (or --server) an rdmakv server is started in-process
on 127.0.0.1, sized for the workload; its CPU time is then inside the
process's, recorded as such ("process" scope).

Before it measures, run asks the server for its limits (max eager, key and
value, pool size, requests in flight) and fails, naming every cell they rule
out and what to change, without measuring anything.

Results go to a new directory results/<workload>-<YYYYmmdd-HHMMSS> (or under
-o DIR): results.json, hlog/*.hlog (HdrHistogram interval logs, one per
cell) and summary.txt; results/latest (or DIR/latest) then links to it.
The table run prints (summary.txt) counts failed operations as errors and
the not_found answers to gets and deletes of absent keys as misses.
A cell not to be trusted (two latency modes, p50 far above t_min, swinging
per-second rates, a p50 unlike the same cell's at other thresholds) is
marked "!" in the table and its warnings follow it; results.json keeps them.
Flags override the workload file only when given.

Exit status: 0 on success, 1 on error or when verify mode found a bad value,
2 when interrupted (what was measured so far is still written).`,
		Example: `  kvbench run workloads/quickstart.yaml
  kvbench run workloads/ycsb-a.yaml --server 10.0.0.2:7471 --transport verbs
  kvbench run workloads/threshold-sweep.yaml --duration 30s --connections 4 --depth 8
  kvbench run workloads/open-loop-latency.yaml --rate 50000 --seed 7 -o /tmp/runs
  dir=$(kvbench run --quiet workloads/quickstart.yaml) && kvbench report "$dir"`,
		Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.repeat < 1 {
				return fmt.Errorf("--repeat %d: want at least 1", f.repeat)
			}
			if f.repeat > 1 && mpi.Built && mpi.Launched() {
				return errors.New("--repeat does not go with an MPI launch: launch the job that many times")
			}
			mon, err := listenRunMetrics(f.metrics)
			if err != nil {
				return err
			}
			defer mon.close()
			f.mon = mon
			for range f.repeat {
				if err := runRun(cmd, args[0], &f); err != nil {
					return err
				}
			}
			return nil
		},
	}
	f.registerTarget(cmd, nil)
	f.registerLoad(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", results.DefaultParent, "directory to create the run directory in")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress and no table; print only the results directory")
	fl.StringVar(&f.metrics, "metrics", "", "host:port to serve Prometheus metrics on at /metrics while the run lasts (default: none)")
	fl.IntVar(&f.repeat, "repeat", 1, "run the workload this many times, one results directory each (for kvbench compare)")
	fl.IntVar(&f.rank, "rank", 0, "this load generator's rank, 0 to ranks-1, for a run from several hosts merged later (default: from OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID or JOB_COMPLETION_INDEX)")
	fl.IntVar(&f.ranks, "ranks", 0, "how many load generators run the workload together (default: from OMPI_COMM_WORLD_SIZE, PMI_SIZE or SLURM_NTASKS)")
	cmd.MarkFlagDirname("out")
	return cmd
}

func runRun(cmd *cobra.Command, file string, f *runFlags) error {
	stderr := cmd.ErrOrStderr()
	w, err := f.load(cmd, file)
	if err != nil {
		return err
	}
	cfg := bench.FromWorkload(w)
	cfg.Codec = bench.Values{}
	if err := bench.ScanTrace(&cfg); err != nil {
		return err
	}
	switch t := w.IgnoredThresholds(); {
	case w.Target.Profile != "":
		fmt.Fprintf(stderr, "kvbench: note: applying profile %s, one cell per (op, value size) labelled profile\n", w.ProfileSummary())
		if t != nil {
			fmt.Fprintf(stderr, "kvbench: note: the profile sets the thresholds: thresholds %v do not apply\n", t)
		}
	case t != nil:
		fmt.Fprintf(stderr, "kvbench: note: %s has no eager threshold: thresholds %v do not apply, one cell per (op, value size)\n", w.Target.Kind, t)
	}
	world, from, err := joinRanks(cmd, f, &cfg, w.Target.Server != "")
	if err != nil {
		return err
	}
	if world != nil {
		defer world.Finalize()
	}
	h, err := openRunHarness(cmd, w, cfg, world)
	if err != nil {
		abortRank(stderr, world, err)
		return err
	}
	defer h.Close()
	ck := wireRun(cmd, f, &cfg, w, h, world)
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, runErr := bench.Run(ctx, cfg)
	stop()
	if world != nil {
		return finishMPI(cmd, f, world, w, h, rep, runErr, ck)
	}
	if rep == nil || (runErr != nil && len(rep.Measurements) == 0) {
		return runErr // nothing was measured: no run directory
	}
	return recordRun(cmd, f, w, h, cfg, from, rep, runErr)
}

// joinRanks sets cfg's rank from the MPI job this process belongs to, if
// any (its world is then returned, to be finalized), else from --rank and
// the environment; ranks must share one server, so more than one needs an
// external one.
func joinRanks(cmd *cobra.Command, f *runFlags, cfg *bench.Config, external bool) (world *mpi.World, from string, err error) {
	if world, err = joinMPI(cmd); err != nil {
		return nil, "", err
	}
	if world != nil {
		cfg.Rank, cfg.Ranks, from = world.Rank(), world.Size(), "MPI"
		cfg.Sync = func(_ string, stop bool) (bool, error) { return world.AnyOf(stop) }
		f.quiet = f.quiet || world.Rank() != 0 // rank 0 speaks for the job
	} else if cfg.Rank, cfg.Ranks, from, err = rankOf(cmd, f.rank, f.ranks); err != nil {
		return nil, "", err
	}
	if cfg.Ranks > 1 && !external {
		err := fmt.Errorf("rank %d of %d: the ranks must share one server: give target.server or --server (an embedded server is each rank's own)", cfg.Rank, cfg.Ranks)
		abortRank(cmd.ErrOrStderr(), world, err)
		if world != nil {
			world.Finalize()
		}
		return nil, "", err
	}
	return world, from, nil
}

// openRunHarness opens the run's target and checks that the server can
// run every cell. Every rank checks, so that all of them fail alike. In
// an MPI job, a rank that cannot reach the server fails in bench.Run
// instead, where the others learn of it at their first meeting and rank 0
// says why.
func openRunHarness(cmd *cobra.Command, w *workload.Workload, cfg bench.Config, world *mpi.World) (*bench.Harness, error) {
	h, err := bench.OpenHarness(bench.HarnessConfig{
		Workload: w, MaxValue: cfg.MaxValueSize(), Sizes: cfg.Sizes, MaxThreshold: cfg.MaxThreshold(),
		Host: results.CollectHost(), Logger: noticeLogger(cmd.ErrOrStderr()), CostTime: harnessCostTime,
	})
	if err != nil {
		return nil, err
	}
	if err := checkServer(cmd.Context(), h, cfg); err != nil && (world == nil || !errors.As(err, new(unreachableError))) {
		h.Close()
		return nil, err
	}
	return h, nil
}

// wireRun connects cfg to the harness, the progress display and the
// metrics, and in an MPI job to rank 0's checkpoint, which it returns.
func wireRun(cmd *cobra.Command, f *runFlags, cfg *bench.Config, w *workload.Workload, h *bench.Harness, world *mpi.World) (ck *merge.Checkpoint) {
	// An embedded server starts empty: verify then knows unwritten keys are
	// absent; and its CPU time is the process's, not to be told apart.
	cfg.Dialer, cfg.FreshServer, cfg.CPUProcess = h.Dialer(), h.Embedded(), h.Embedded()
	cfg.ServerCPU, cfg.DeviceCounters, cfg.ReceiveMemory = h.ServerCPU(), h.DeviceCounters(), h.ReceiveMemory()
	cfg.Logger = noticeLogger(cmd.ErrOrStderr())
	if world != nil {
		ck, cfg.Checkpoint = checkpointRank(f, world, w, h)
	}
	if !f.quiet {
		cfg.Observer, cfg.Tick = progressObserver(cmd.OutOrStdout())
	}
	f.mon.observe(cfg, h.Kind(), cmd.ErrOrStderr())
	return ck
}

// recordRun writes what a process that is no MPI rank measured, and says
// how the run ended.
func recordRun(cmd *cobra.Command, f *runFlags, w *workload.Workload, h *bench.Harness, cfg bench.Config, from string, rep *bench.Report, runErr error) error {
	ver, rev := buildVersion()
	run, cells, err := h.Record(w, w.Seed, rep, runErr, ver, rev)
	if err != nil {
		return errors.Join(runErr, err)
	}
	name := w.Name
	if cfg.Ranks > 1 {
		run.Rank = &results.Rank{Rank: cfg.Rank, Ranks: cfg.Ranks, From: from}
		name = fmt.Sprintf("%s-rank%d", w.Name, cfg.Rank)
	}
	dir, err := saveRun(cmd, f, name, run, cells)
	if err != nil {
		return errors.Join(runErr, err)
	}
	return outcome(rep, runErr, dir)
}

// saveRun writes a run directory and says where: its path alone with
// --quiet, else the summary table and the path.
func saveRun(cmd *cobra.Command, f *runFlags, name string, run *results.Run, cells []results.CellLog) (string, error) {
	stdout := cmd.OutOrStdout()
	dir, err := results.WriteRun(f.out, name, run, cells, report.WriteSummary)
	switch {
	case errors.Is(err, results.ErrLatest):
		// A convenience for scripts; the run itself is complete without it.
		fmt.Fprintf(cmd.ErrOrStderr(), "kvbench: warning: %v\n", err)
	case err != nil:
		return "", err
	}
	if f.quiet {
		fmt.Fprintln(stdout, dir)
		return dir, nil
	}
	fmt.Fprintln(stdout)
	if err := report.WriteSummary(stdout, run); err != nil {
		return dir, err
	}
	fmt.Fprintf(stdout, "results: %s\n", dir)
	return dir, nil
}

// progressObserver reports progress on out: redrawn lines four times a
// second on a terminal, plain lines once a second elsewhere.
func progressObserver(out io.Writer) (bench.Observer, time.Duration) {
	tty := false
	if file, ok := out.(*os.File); ok {
		tty = progress.IsTerminal(file)
	}
	if tty {
		return progress.New(out, true), 250 * time.Millisecond
	}
	return progress.New(out, false), 0
}

// outcome is the command's result for a run whose directory was written:
// the run's error if any, else exit status 2 if interrupted, else 1 if
// verify mode found bad values (also said when interrupted), else success.
func outcome(rep *bench.Report, runErr error, dir string) error {
	var verr error
	if v := rep.Verify; v.Failed() {
		verr = fmt.Errorf("verify failed: %d mismatches, %d missing, %d torn of %d checked (see %s)",
			v.Mismatches, v.Missing, v.Torn, v.Checked, dir)
	}
	switch {
	case runErr != nil:
		return errors.Join(runErr, verr)
	case rep.Interrupted:
		return &ExitError{Code: 2, Err: errors.Join(fmt.Errorf("interrupted; partial results in %s", dir), verr)}
	case verr != nil:
		return &ExitError{Code: 1, Err: verr}
	}
	return nil
}
