package cli

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/progress"
	"github.com/kvbench/kvbench/internal/results"
	_ "github.com/kvbench/kvbench/rdmakv/tcp"   // the TCP transport
	_ "github.com/kvbench/kvbench/rdmakv/verbs" // the RDMA verbs transport (cgo, libibverbs)
)

func init() { register(newRunCmd) }

type runFlags struct {
	workloadFlags
	out   string
	quiet bool
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run WORKLOAD.yaml",
		Short: "Run a workload and write its results directory",
		Long: `Run replays a workload against an rdmakv server: for each eager threshold
(with fresh connections) and each value size it preloads the keys, warms up
without recording, then measures. Latencies go into HdrHistograms per
(operation, protocol) in nanoseconds; open-loop runs measure each operation
from its intended start, so stalls are not hidden (coordinated omission).

Without target.server (or --server) an rdmakv server is started in-process
on 127.0.0.1, sized for the workload.

Results go to a new directory results/<workload>-<YYYYmmdd-HHMMSS> (or under
-o DIR): results.json, hlog/*.hlog (HdrHistogram interval logs, one per
cell) and summary.txt; results/latest (or DIR/latest) then links to it.
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
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, args[0], &f) },
	}
	f.registerTarget(cmd, "measure phase length per cell, replacing the workload's phases.measure")
	f.registerLoad(cmd)
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", results.DefaultParent, "directory to create the run directory in")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress and no table; print only the results directory")
	cmd.MarkFlagDirname("out")
	return cmd
}

func runRun(cmd *cobra.Command, file string, f *runFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	w, err := f.load(cmd, file)
	if err != nil {
		return err
	}
	cfg := bench.FromWorkload(w)
	cfg.Codec = bench.Values{}
	host := results.CollectHost()
	workers := cfg.Workers()
	maxValue := cfg.ValueSizes[len(cfg.ValueSizes)-1]

	addr, tr := w.Target.Server, w.Target.Transport
	var emb *bench.Embedded
	if addr == "" {
		emb, err = bench.StartEmbedded(bench.EmbeddedConfig{
			Transport: tr, Poll: w.Target.Poll, Keys: w.Keys.Count, KeySize: w.Keys.Size, MaxValue: maxValue,
			MaxThreshold: cfg.Thresholds[len(cfg.Thresholds)-1], Workers: workers, Notice: stderr,
		}, host.MemBytes)
		if err != nil {
			return err
		}
		defer emb.Close()
		addr, tr = emb.Addr(), emb.Transport
		cfg.FreshServer = true
	}
	dialer := &bench.RdmakvDialer{
		Addr: addr, Transport: tr, Poll: w.Target.Poll, Timeout: time.Duration(w.Timeout), Depth: w.Load.Depth,
		StagingSize: stagingSize(w.Load.Depth, w.Keys.Size+maxValue), Notice: stderr,
	}
	cfg.Dialer = dialer

	start := time.Now()
	dir, err := results.CreateRunDir(f.out, w.Name, start)
	if err != nil {
		return err
	}
	if !f.quiet {
		out, tty := stdout, false
		if file, ok := stdout.(*os.File); ok {
			tty = progress.IsTerminal(file)
		}
		cfg.Observer = progress.New(out, tty)
		if tty {
			cfg.Tick = 250 * time.Millisecond
		}
	}

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, runErr := bench.Run(ctx, cfg)
	stop()
	if rep == nil || (runErr != nil && len(rep.Measurements) == 0) {
		// Nothing was measured: leave no empty run directory behind.
		os.Remove(filepath.Join(dir, results.HlogDir))
		os.Remove(dir)
		return runErr
	}

	ver, rev := buildVersion()
	run := &results.Run{
		SchemaVersion: results.SchemaVersion, Workload: w, Seed: w.Seed, Version: ver, Revision: rev,
		Start: rep.Start, End: rep.End, EndReason: "completed", Host: host,
		Transport: results.Transport{Name: tr, Server: addr, Embedded: emb != nil, ClientPoll: dialer.ClientPoll()},
		Verify: results.VerifyCounts{Checked: rep.Verify.Checked, Mismatches: rep.Verify.Mismatches,
			Missing: rep.Verify.Missing, Torn: rep.Verify.Torn},
	}
	if emb != nil {
		run.Transport.ServerPoll = emb.Poll
	}
	switch {
	case runErr != nil:
		run.EndReason = "error: " + runErr.Error()
	case rep.Interrupted:
		run.EndReason = "interrupted"
	}
	if info, lim, ok := dialer.Info(); ok {
		t := &run.Transport
		t.Name, t.Device, t.Firmware, t.Port, t.MTU, t.LinkLayer, t.GID, t.MaxInline =
			info.Transport, info.Device, info.Firmware, info.Port, info.MTU, info.LinkLayer, info.GID, info.MaxInline
		t.Limits = &results.ServerLimits{MaxEager: lim.MaxEager, MaxKey: lim.MaxKey, MaxValue: lim.MaxValue,
			PoolSize: lim.PoolSize, LeaseNs: int64(lim.Lease), MaxInflight: lim.MaxInflight}
	}
	if err := writeRun(dir, run, rep); err != nil {
		return errors.Join(runErr, err)
	}
	// A convenience for scripts; the run itself is complete without it.
	if err := results.UpdateLatest(f.out, dir); err != nil {
		fmt.Fprintf(stderr, "kvbench: warning: %v\n", err)
	}

	if f.quiet {
		fmt.Fprintln(stdout, dir)
	} else {
		fmt.Fprintln(stdout)
		if err := results.WriteSummary(stdout, run); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "results: %s\n", dir)
	}
	return outcome(rep, runErr, dir)
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

// writeRun writes the interval logs, then results.json and summary.txt,
// each atomically; results.json last but one, so that a directory with a
// results.json has every .hlog it names.
func writeRun(dir string, run *results.Run, rep *bench.Report) error {
	for i := range rep.Measurements {
		m := &rep.Measurements[i]
		c, err := m.Cell()
		if err != nil {
			return err
		}
		hs, err := bench.DecodeIntervals(m.Intervals)
		if err != nil {
			return err
		}
		comment := fmt.Sprintf("[kvbench cell op=%s protocol=%s value_size=%d threshold=%d]", c.Op, c.Protocol, c.ValueSize, c.Threshold)
		if err := results.WriteHlog(filepath.Join(dir, filepath.FromSlash(c.Hlog)), comment, m.Start, hs); err != nil {
			return err
		}
		run.Cells = append(run.Cells, c)
	}
	if err := run.Save(dir); err != nil {
		return err
	}
	return results.SaveSummary(dir, run)
}

// stagingSize gives each connection room for depth rendezvous payloads of
// the largest size at once, between 1 MiB and 256 MiB; a payload that does
// not fit still works through a temporary registration, only slower.
func stagingSize(depth, largest int) int {
	per := 1 << bits.Len(uint(max(largest, 1)-1))
	return min(max(depth*per, 1<<20), 256<<20)
}
