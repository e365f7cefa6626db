package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/progress"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

func init() { register(newTuneCmd) }

type tuneFlags struct {
	repeats int
	alpha   float64
	ops     string
	out     string
	workloadFlags
}

func newTuneCmd() *cobra.Command {
	f := &tuneFlags{}
	cmd := &cobra.Command{
		Use:   "tune WORKLOAD.yaml",
		Short: "Measure forced eager against forced rendezvous and recommend an eager threshold",
		Long: `tune measures, for every value size of the workload and each op (get,
set), the p50 latency and throughput with eager forced (threshold above the
size) and with rendezvous forced (threshold 0). Each pair is repeated
--repeats times, interleaved, the order of the two protocols alternating
between repetitions so that drift falls on both alike. The workload's
thresholds are ignored; its keys, phases and load model are used.

Each repetition measures eager and rendezvous back to back, a pair that
shares the machine's state of the moment. A protocol wins a size when it
has the lower p50 in enough pairs that chance is ruled out (a one-sided
sign test at --alpha: with 5 repeats all 5 pairs must agree, with 8 at
least 7). A pair counts as one vote however far off it is, so a single
disturbed measurement cannot hide a clear difference. Per op, the crossover is the smallest size from which rendezvous
wins (confirmed by the next size) and eager never wins again above it;
sizes where neither wins are ties. The recommended threshold is the smallest crossover over the ops, as a power
of two. If the sizes do not contain a crossover, tune says so and which
range to measure instead.

Against target.server, eager cannot be measured where key + value is not
below the server's max eager: tune lists those sizes as unmeasured (text
and tune.json's eager_unmeasured), looks for the crossover only where both
protocols were measured and never takes the server's limit for one. The
embedded server's max eager is raised to cover every size; a size whose
key + value + 1 exceeds 16MiB is refused up front. The server's other
limits (max key and value, pool size, requests in flight) are checked
before anything is measured, every size they rule out named.

tune records every operation's phases (client, network, server, and the
rendezvous steps; --phases=false turns this off, whatever the workload's
op_phases says) and names the phase that decides each crossover: the one
whose eager-minus-rendezvous difference grows most from the size below
the crossover to the crossover.

A table in the manner of UCX's protocol info is printed; tune.txt,
tune.json, tune-OP.png/.svg (both curves, crossover marked) and
tune-phases-OP.png/.svg (stacked phase p50s, eager and rendezvous side by
side per size) are saved in a new directory under --out. Measurements not
to be trusted (two latency modes, p50 far above t_min, swinging per-second
rates) are listed after the table, and tune.json keeps their warnings.`,
		Example: `  kvbench tune workloads/threshold-sweep.yaml
  kvbench tune workloads/threshold-sweep.yaml --ops get --repeats 8 --duration 2s
  kvbench tune workloads/threshold-sweep.yaml --server 10.0.0.2:7471 --transport verbs --poll busy`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runTune(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.IntVar(&f.repeats, "repeats", tune.DefaultRepeats, "eager/rendezvous pairs measured per (op, size); 8 or more tolerates one disturbed pair")
	fl.Float64Var(&f.alpha, "alpha", tune.DefaultAlpha, "significance level of the sign test over the pairs")
	fl.StringVar(&f.ops, "ops", "", "comma-separated ops to tune: get, set (default: those in the workload's mix)")
	fl.StringVarP(&f.out, "out", "o", results.DefaultParent, "directory to create the tune directory in")
	f.registerTarget(cmd, "measure phase per measurement, replacing the workload's phases.measure")
	return cmd
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

func runTune(cmd *cobra.Command, file string, f *tuneFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	w, err := f.load(cmd, file)
	if err != nil {
		return err
	}
	// tune explains its crossover with the phases unless told not to.
	w.OpPhases = f.phases || !cmd.Flags().Changed("phases")
	cfg, err := f.config(w, stderr)
	if err != nil {
		return err
	}
	h, m, err := tuneHarness(cmd.Context(), w, cfg, stderr)
	if err != nil {
		return err
	}
	defer h.Close()
	total := cfg.Repeats * len(cfg.Sizes) * len(cfg.Ops) * 2
	fmt.Fprintf(stderr, "kvbench tune: %s over %s: %d ops x %d sizes x 2 protocols x %d repeats = %d measurements",
		w.Name, h.Transport(), len(cfg.Ops), len(cfg.Sizes), cfg.Repeats, total)
	if per := time.Duration(w.Phases.Warmup.Duration) + time.Duration(w.Phases.Measure.Duration); per > 0 {
		fmt.Fprintf(stderr, " of about %s (at least %s)", per, per*time.Duration(total))
	}
	fmt.Fprintln(stderr)
	cfg.Progress = tuneProgress(stderr)

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := tune.Run(ctx, cfg, m)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return &ExitError{Code: 2, Err: errors.New("tune interrupted; nothing saved")}
		}
		return err
	}
	if err := res.WriteTable(stdout); err != nil {
		return err
	}
	dir, err := results.CreateDir(f.out, "tune-"+w.Name, time.Now())
	if err != nil {
		return err
	}
	paths, err := res.Save(dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nsaved %d files in %s\n", len(paths), dir)
	return nil
}

// config is the tuning plan for w, checked; a repeat count too small to
// ever decide is warned about on stderr.
func (f *tuneFlags) config(w *workload.Workload, stderr io.Writer) (tune.Config, error) {
	cfg := tune.Config{Ops: tuneOps(f.ops, w.Mix), Repeats: f.repeats, Alpha: f.alpha, KeySize: w.Keys.Size}
	for _, s := range w.ValueSizes() {
		cfg.Sizes = append(cfg.Sizes, int(s))
	}
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	if f.alpha == 0 {
		return cfg, errors.New("--alpha 0: want a significance level in (0, 0.5)")
	}
	if n := tune.MinDecisiveRepeats(f.alpha); f.repeats < n {
		fmt.Fprintf(stderr, "kvbench tune: warning: with --repeats %d no size can show a significant winner at --alpha %g; use %d or more\n",
			f.repeats, f.alpha, n)
	}
	return cfg, nil
}

// tuneHarness opens the harness tune measures against and its measurer.
// Eager is forced with threshold key + size + 1, so an embedded server's
// max eager is raised to the largest of those: eager is then measured
// wherever rendezvous is. The server's other limits are checked up front.
func tuneHarness(ctx context.Context, w *workload.Workload, cfg tune.Config, stderr io.Writer) (*bench.Harness, *tune.BenchMeasurer, error) {
	maxValue := cfg.Sizes[len(cfg.Sizes)-1]
	if w.Target.Server == "" {
		if err := cfg.CheckEagerLimit(rdmakv.MaxEagerLimit); err != nil {
			return nil, nil, fmt.Errorf("embedded server: %w", err)
		}
	}
	h, err := bench.OpenHarness(bench.HarnessConfig{
		Workload: w, MaxValue: maxValue, MaxThreshold: w.Keys.Size + maxValue + 1,
		Host: results.CollectHost(), Logger: noticeLogger(stderr),
	})
	if err != nil {
		return nil, nil, err
	}
	bcfg := bench.FromWorkload(w)
	bcfg.Codec, bcfg.Dialer = bench.Values{}, h.Dialer
	if err := checkServer(ctx, h, tuneCells(bcfg, cfg)); err != nil {
		h.Close()
		return nil, nil, err
	}
	return h, &tune.BenchMeasurer{
		Config: bcfg,
		// A server whose eager limit is below the forced threshold refuses
		// the connection: eager cannot carry that size there.
		Unsupported: func(err error) bool { return errors.Is(err, rdmakv.ErrThreshold) },
	}, nil
}

// tuneCells is what tune's measurements ask of the server, for
// checkServer: every size, preloaded when get is tuned. It has no
// thresholds: a size whose forced eager threshold the server refuses is
// left unmeasured by design (tune.Config.CheckEagerLimit), not an error.
func tuneCells(b bench.Config, cfg tune.Config) bench.Config {
	b.Thresholds, b.ValueSizes = nil, cfg.Sizes
	b.Preload = slices.Contains(cfg.Ops, "get")
	return b
}

// tuneProgress reports each measurement on stderr: one redrawn line on a
// terminal, else a line per twentieth of the work.
func tuneProgress(stderr io.Writer) func(done, total int, op string, size int, p tune.Protocol) {
	tty := false
	if file, ok := stderr.(*os.File); ok {
		tty = progress.IsTerminal(file)
	}
	return func(done, total int, op string, size int, p tune.Protocol) {
		line := fmt.Sprintf("[%d/%d] %s %s %s", done, total, op, units.Bytes(int64(size)), p)
		if tty {
			fmt.Fprintf(stderr, "\r%-40s", line)
			if done == total {
				fmt.Fprintln(stderr)
			}
		} else if done%max(1, total/20) == 0 || done == total {
			fmt.Fprintln(stderr, line)
		}
	}
}
