// Command kvperf drives an rdmakv server through the public client API:
// -check is an end-to-end correctness run (exit status 1 on any mismatch),
// -bench measures latency and throughput and prints one JSON object per
// case. The Soft-RoCE VM rig runs it against kvserver.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	_ "github.com/kvbench/kvbench/rdmakv/tcp"
	"github.com/kvbench/kvbench/rdmakv/transport"
	_ "github.com/kvbench/kvbench/rdmakv/verbs"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "kvperf: %v\n", err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	c, err := rdmakv.Dial(ctx, cfg.addr, cfg.options()...)
	cancel()
	if err != nil {
		fmt.Fprintf(stderr, "kvperf: dial %s: %v\n", cfg.addr, err)
		return 1
	}
	defer c.Close()
	if cfg.check {
		if err := runCheck(c, cfg, stdout); err != nil {
			fmt.Fprintf(stderr, "kvperf: check: %v\n", err)
			return 1
		}
		return 0
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "kvperf: %v\n", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "kvperf: cpu profile: %v\n", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if err := runBench(c, cfg, stdout); err != nil {
		fmt.Fprintf(stderr, "kvperf: bench: %v\n", err)
		return 1
	}
	return 0
}

// config is the parsed command line.
type config struct {
	addr      string
	transport string
	threshold int
	timeout   time.Duration
	poll      transport.Poll
	check     bool
	bench     bool
	// op, size and n select one bench case; without op every standard
	// case runs, n overriding each one's default iteration count.
	op   string
	size int
	n    int
	// inflight is how many operations -bench keeps in flight at once.
	inflight int
	// maxCheck is the largest value -check moves.
	maxCheck int
	// cpuProfile, when set, is where -bench writes a CPU profile (for
	// go tool pprof with the same binary).
	cpuProfile string
}

func (c config) options() []rdmakv.Option {
	return []rdmakv.Option{
		rdmakv.WithTransport(c.transport),
		rdmakv.WithEagerThreshold(c.threshold),
		rdmakv.WithTimeout(c.timeout),
		rdmakv.WithPoll(c.poll),
	}
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("kvperf", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", "", "server address host:port (required)")
	fs.StringVar(&c.transport, "transport", "verbs", "transport: verbs or tcp")
	fs.IntVar(&c.threshold, "threshold", 4096, "eager threshold in bytes: key+value below it goes eager")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "bound on each request")
	poll := fs.String("poll", "event", "completion polling: event or busy")
	fs.BoolVar(&c.check, "check", false, "end-to-end check: set, get, verify and delete across eager and rendezvous sizes")
	fs.BoolVar(&c.bench, "bench", false, "benchmark: one JSON object per case on stdout")
	fs.StringVar(&c.op, "op", "", "with -bench: run one case of this operation (get or set) instead of the standard ones")
	fs.IntVar(&c.size, "size", 0, "with -op: value size in bytes")
	fs.IntVar(&c.n, "n", 0, "with -bench: measured iterations per case (0: each case's default)")
	fs.IntVar(&c.inflight, "inflight", 1, "with -bench: operations kept in flight at once, each on its own goroutine and key")
	fs.IntVar(&c.maxCheck, "check-max", 3<<20, "with -check: largest value size")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "with -bench: write a CPU profile to this file")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	var errs []string
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Sprintf("unexpected arguments %q", fs.Args()))
	}
	if c.addr == "" {
		errs = append(errs, "-addr is required")
	}
	if c.transport != "verbs" && c.transport != "tcp" {
		errs = append(errs, fmt.Sprintf("-transport %q: want verbs or tcp", c.transport))
	}
	switch *poll {
	case "event":
		c.poll = transport.PollEvent
	case "busy":
		c.poll = transport.PollBusy
	default:
		errs = append(errs, fmt.Sprintf("-poll %q: want event or busy", *poll))
	}
	if c.check == c.bench {
		errs = append(errs, "give exactly one of -check and -bench")
	}
	if c.threshold < 0 {
		errs = append(errs, fmt.Sprintf("-threshold %d is negative", c.threshold))
	}
	if c.timeout <= 0 {
		errs = append(errs, fmt.Sprintf("-timeout %v must be positive", c.timeout))
	}
	if c.n < 0 {
		errs = append(errs, fmt.Sprintf("-n %d is negative", c.n))
	}
	if c.cpuProfile != "" && !c.bench {
		errs = append(errs, "-cpuprofile needs -bench")
	}
	if c.inflight < 1 || c.inflight > 64 {
		errs = append(errs, fmt.Sprintf("-inflight %d: want 1 to 64", c.inflight))
	}
	if c.maxCheck < 1 {
		errs = append(errs, fmt.Sprintf("-check-max %d must be positive", c.maxCheck))
	}
	switch c.op {
	case "":
		if c.size != 0 {
			errs = append(errs, "-size needs -op")
		}
	case "get", "set":
		if !c.bench {
			errs = append(errs, "-op needs -bench")
		}
		if c.size < 1 {
			errs = append(errs, fmt.Sprintf("-size %d must be positive with -op", c.size))
		}
	default:
		errs = append(errs, fmt.Sprintf("-op %q: want get or set", c.op))
	}
	if len(errs) > 0 {
		msg := errs[0]
		for _, e := range errs[1:] {
			msg += "; " + e
		}
		return c, fmt.Errorf("%s", msg)
	}
	return c, nil
}
