package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/progress"
	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/tune/tunebench"
	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

func init() { register(newTuneCmd) }

type tuneFlags struct {
	repeats   int
	alpha     float64
	ops       string
	out       string
	objective string
	cpuSide   string
	slo       string
	maxMemory string
	predict   bool
	adaptive  bool
	lists     loadLists
	workloadFlags
}

func newTuneCmd() *cobra.Command {
	f := &tuneFlags{}
	cmd := &cobra.Command{
		Use:   "tune WORKLOAD.yaml",
		Short: "Measure forced eager against forced rendezvous and recommend an eager threshold",
		Long: `tune measures every value size of the workload, for each op (get,
set), with eager forced (threshold above the size) and with rendezvous
forced (threshold 0), in interleaved pairs, and recommends the smallest
size from which rendezvous wins by a sign test over the pairs (--alpha),
by --objective (p50, p99, throughput, cpu) or by capacity under a latency
goal (--slo). --connections, --depth and --rate take lists: tune then
recommends per load and maps the winners over size and load. It prints a
table in the manner of UCX's protocol info and saves tune.txt, tune.json,
plots and tune.html (the whole tune as one self-contained page: tables,
figures inline, links to the files) under --out, and where it found
thresholds profile.json: each
op's own threshold per band of load, which kvbench run --profile,
KVBENCH_PROFILE (the C API) and rdmakv.WithProfile apply. The
workload's thresholds are ignored; its keys, phases and load model are
used.

On a workload whose values follow values.distribution, tune instead runs
the whole workload (its mix, its sizes) at each candidate threshold (the
workload's thresholds, else powers of 4 from 256B up to its largest
size), every candidate once a round, --repeats rounds, and chooses by
--objective over all ops merged: the best median, or among the
candidates the sign test cannot tell from it, the one needing the least
receive memory. With --slo each candidate gets a capacity search on the
whole workload instead, all ops merged, the candidates' searches a step
each in turn: the highest capacity wins, or among the candidates within
10% of it (with enough --repeats for the sign test, those it cannot tell
from it) the one needing the least receive memory; a candidate meeting
the goal at no rate is never chosen, and if none meets it tune says so
and chooses none. Each candidate shows the registered receive memory it
needs (server + client); --max-memory rules out those above a limit.
--predict also measures the distribution's size classes one by one
(under --slo, a search each) and says which threshold they would have
predicted. Each round also measures the adaptive policy
(rdmakv.WithAdaptiveThreshold) in the rotation; it is never chosen, but
compared with the chosen threshold and the default 4KiB: its median (or
capacity), the ratio, the rounds it won and the sign test's p.
--adaptive=false leaves it out; "adaptive" in the workload's thresholds
asks for the same. On fixed sizes the policy is measured at each size
and op as a third entry in the rotation beside eager and rendezvous
(about 50% more measurements; --adaptive=false leaves it out), and
compared with the protocol the recommended threshold and the profile
give the size, and with the size's winner, which it should trail by at
most 2% (the cost of its exploring). The whole manual, with how each
objective decides: docs/USAGE.md, "tune".`,
		Example: `  kvbench tune workloads/threshold-sweep.yaml
  kvbench tune workloads/threshold-sweep.yaml --ops get --repeats 8 --duration 2s
  kvbench tune workloads/threshold-sweep.yaml --connections 16 --slo p99=1ms
  kvbench tune workloads/threshold-sweep.yaml --connections 1,4,16 --depth 1,8 --objective p99 --duration 3s
  kvbench tune workloads/threshold-sweep.yaml --server 10.0.0.2:7471 --objective cpu
  kvbench tune workloads/threshold-sweep.yaml --server 10.0.0.2:7471 --transport verbs --poll busy
  kvbench tune workloads/etc.yaml --objective p99 --max-memory 64MiB
  kvbench tune workloads/etc.yaml --connections 4 --depth 8 --slo p99=2ms
  kvbench tune workloads/mixed-sweep.yaml --predict --repeats 8
  kvbench tune workloads/etc.yaml --adaptive=false`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runTune(cmd, args[0], f) },
	}
	f.addFlags(cmd)
	return cmd
}

// addFlags adds tune's flags, the workload's overrides among them; its
// --connections, --depth and --rate take lists.
func (f *tuneFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&f.repeats, "repeats", tune.DefaultRepeats, "eager/rendezvous pairs measured per (op, size, load); 8 or more tolerates one disturbed pair (with --slo the default is 1 search)")
	fl.Float64Var(&f.alpha, "alpha", tune.DefaultAlpha, "significance level of the sign test over the pairs")
	fl.StringVar(&f.ops, "ops", "", "comma-separated ops to tune: get, set (default: those in the workload's mix)")
	fl.StringVarP(&f.out, "out", "o", results.DefaultParent, "directory to create the tune directory in")
	fl.StringVar(&f.objective, "objective", "p50", "what a protocol wins by: p50, p99, throughput or cpu")
	fl.StringVar(&f.cpuSide, "cpu-side", "", "whose CPU the cpu objective compares: server or client (default server)")
	fl.StringVar(&f.slo, "slo", "", "compare capacity under a latency goal, e.g. p99=500us (p50, p90, p99 or p99.9)")
	fl.IntSliceVar(&f.lists.conns, "connections", nil, "client connections; a list (1,4,16) compares at each (default load.connections)")
	fl.IntSliceVar(&f.lists.depths, "depth", nil, "operations in flight per connection; a list compares at each (default load.depth)")
	fl.Float64SliceVar(&f.lists.rates, "rate", nil, "open-loop rates in ops/s over all connections; a list compares at each (default: the workload's load)")
	fl.StringVar(&f.maxMemory, "max-memory", "", "on a distribution: rule out candidate thresholds whose registered receive memory, server plus client, exceeds `SIZE` (e.g. 64MiB)")
	fl.BoolVar(&f.predict, "predict", false, "on a distribution: also measure its size classes one by one and say which threshold they predict")
	fl.BoolVar(&f.adaptive, "adaptive", true, "also measure the adaptive policy each round and compare it: on a distribution with the chosen threshold (not a candidate), on fixed sizes at each size with the threshold's, the profile's and the winner's protocol (about 50% more measurements)")
	f.readFirsts(&f.lists)
	f.registerTarget(cmd, map[string]string{"duration": "measure phase per measurement, replacing the workload's phases.measure"})
	cmd.RegisterFlagCompletionFunc("objective", cobra.FixedCompletions([]string{"p50", "p99", "throughput", "cpu"}, cobra.ShellCompDirectiveNoFileComp))
}

func runTune(cmd *cobra.Command, file string, f *tuneFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	w, err := f.load(cmd, file)
	if err != nil {
		return err
	}
	if w.Target.Baseline() {
		return fmt.Errorf("target.kind %s: tune places rdmakv's eager threshold, which %s does not have (measure it with kvbench run)", w.Target.Kind, w.Target.Kind)
	}
	// tune explains its crossover with the phases unless told not to.
	if !cmd.Flags().Changed("phases") {
		w.OpPhases = true
	}
	cfg, err := f.config(cmd, w, stderr)
	if err != nil {
		return err
	}
	h, m, err := tuneHarness(cmd.Context(), w, cfg, stderr)
	if err != nil {
		return err
	}
	defer h.Close()
	announceTune(stderr, w, cfg, h.Transport())
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
	ver, rev := buildVersion()
	res.Build = tune.Build{Version: ver, Revision: rev, Protocol: wire.ProtocolVersion}
	res.Harness = h.Cost()
	if err := report.Tune(stdout, res); err != nil {
		return err
	}
	dir, err := results.CreateDir(f.out, "tune-"+w.Name, time.Now())
	if err != nil {
		return err
	}
	paths, err := saveTune(dir, report.TuneRan{Workload: w.Name, Target: tuneTarget(w, h.Transport())}, res)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nsaved %d files in %s\n", len(paths), dir)
	return nil
}

// tuneTarget names what tune measured: the store, its transport and the
// server, or that kvbench embedded it.
func tuneTarget(w *workload.Workload, transport string) string {
	server := "embedded server"
	if w.Target.Server != "" {
		server = "server " + w.Target.Server
	}
	return fmt.Sprintf("%s over %s, %s", cmp.Or(w.Target.Kind, results.KindRdmakv), transport, server)
}

// announceTune says on stderr what tune is about to measure and, where it
// can tell, for how long.
func announceTune(stderr io.Writer, w *workload.Workload, cfg tune.Config, transport string) {
	loads := ""
	if n := len(cfg.Loads); n > 1 {
		loads = fmt.Sprintf(" x %d loads", n)
	}
	ways := "2 protocols"
	if cfg.Adaptive {
		ways = "(2 protocols and adaptive)"
	}
	what := fmt.Sprintf("%d ops x %d sizes x %s%s x %d repeats", len(cfg.Ops), len(cfg.Sizes), ways, loads, cfg.Repeats)
	if wl := cfg.Workload; wl != nil {
		adaptive := ""
		if wl.Adaptive {
			adaptive = " and adaptive"
		}
		what = fmt.Sprintf("the whole workload at %d candidate thresholds%s%s x %d repeats", len(wl.Thresholds), adaptive, loads, cfg.Repeats)
		if len(cfg.Sizes) > 0 {
			what += fmt.Sprintf(", and to predict: %d ops x %d size classes x 2 protocols%s x %d repeats", len(cfg.Ops), len(cfg.Sizes), loads, cfg.Repeats)
		}
	}
	if cfg.SLO != nil {
		fmt.Fprintf(stderr, "kvbench tune: %s over %s: capacity at %s: %s, a search of several measurements each\n", w.Name, transport, cfg.SLO, what)
		return
	}
	total := cfg.Measurements()
	fmt.Fprintf(stderr, "kvbench tune: %s over %s: %s = %d measurements", w.Name, transport, what, total)
	if per := time.Duration(w.Phases.Warmup.Duration) + time.Duration(w.Phases.Measure.Duration); per > 0 {
		fmt.Fprintf(stderr, " of about %s (at least %s)", per, per*time.Duration(total))
	}
	if n := cfg.MinOps(); n > 0 {
		fmt.Fprintf(stderr, "; a %s needs %d operations per measurement (%d beyond it): a timed measure phase runs on until it has them, within its cap, and one short of them stops the tune", cfg.Objective, n, tune.TailSamples)
	}
	fmt.Fprintln(stderr)
}

// tuneHarness opens the harness tune measures against and its measurer.
// An embedded server's max eager is raised to the largest threshold the
// measurements force, so eager is measured wherever rendezvous is; the
// server's other limits are checked up front, and the harness is sized
// for the heaviest load.
func tuneHarness(ctx context.Context, w *workload.Workload, cfg tune.Config, stderr io.Writer) (*bench.Harness, *tunebench.Measurer, error) {
	if w.Target.Server == "" {
		if err := cfg.CheckEagerLimit(rdmakv.MaxEagerLimit); err != nil {
			return nil, nil, fmt.Errorf("embedded server: %w", err)
		}
	}
	hc := bench.HarnessConfig{
		Workload: tunebench.HarnessWorkload(&cfg, w), MaxValue: cfg.MaxValue(), MaxThreshold: cfg.MaxEagerThreshold(),
		Host: results.CollectHost(), Logger: noticeLogger(stderr), CostTime: harnessCostTime,
	}
	if d := w.Values.Distribution; d != nil {
		hc.Sizes = d.Law()
	}
	h, err := bench.OpenHarness(hc)
	if err != nil {
		return nil, nil, err
	}
	bcfg := bench.FromWorkload(w)
	bcfg.Codec, bcfg.Dialer, bcfg.CPUProcess = bench.Values{}, h.Dialer(), h.Embedded()
	bcfg.ServerCPU, bcfg.DeviceCounters, bcfg.Logger = h.ServerCPU(), h.DeviceCounters(), noticeLogger(stderr)
	if err := checkServer(ctx, h, tunebench.LimitCells(&cfg, bcfg)); err != nil {
		h.Close()
		return nil, nil, err
	}
	return h, &tunebench.Measurer{
		Config: bcfg, Harness: h.Cost(), Link: h.Link(), Cores: hc.Host.Cores,
		// A server whose eager limit is below the forced threshold refuses
		// the connection: eager cannot carry that size there.
		Unsupported: func(err error) bool { return errors.Is(err, rdmakv.ErrThreshold) },
	}, nil
}

// tuneProgress reports each measurement on stderr: one redrawn line on a
// terminal, else a line per twentieth of the work (every tenth
// measurement of a capacity search, whose length is not known ahead).
func tuneProgress(stderr io.Writer) func(tune.Progress) {
	tty := false
	if file, ok := stderr.(*os.File); ok {
		tty = progress.IsTerminal(file)
	}
	return func(p tune.Progress) {
		r := p.Req
		what := fmt.Sprintf("%s %s %s", r.Op, units.Bytes(int64(r.Size)), r.Policy())
		if r.Whole {
			what = "workload at threshold " + tune.ThresholdName(r.Threshold)
		}
		line := fmt.Sprintf("[%d/%d] %s", p.Done, p.Total, what)
		if p.Total == 0 {
			line = fmt.Sprintf("[%d] %s", p.Done, what)
		}
		if r.Load != (tune.Load{Connections: 1, Depth: 1}) {
			line += " at " + r.Load.String()
		}
		every := max(1, p.Total/20)
		if p.Total == 0 {
			every = 10
		}
		switch {
		case tty:
			fmt.Fprintf(stderr, "\r%-60s", line)
			if p.Done == p.Total {
				fmt.Fprintln(stderr)
			}
		case p.Done%every == 0 || p.Done == p.Total:
			fmt.Fprintln(stderr, line)
		}
	}
}
