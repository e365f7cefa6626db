// Command kvperf is the Soft-RoCE rig's end-to-end correctness check: with
// -check it drives an rdmakv server through the public client API, setting,
// getting, verifying and deleting across eager and rendezvous sizes (exit
// status 1 on any mismatch). Measurements are kvbench's (kvbench run, make
// bench-rdma).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	_ "github.com/kvbench/kvbench/rdmakv/tcp"
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
	if err := runCheck(c, cfg, stdout); err != nil {
		fmt.Fprintf(stderr, "kvperf: check: %v\n", err)
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
	poll      rdmakv.Poll
	auth      []byte
	check     bool
	// maxCheck is the largest value -check moves.
	maxCheck int
}

func (c config) options() []rdmakv.Option {
	return []rdmakv.Option{
		rdmakv.WithTransport(c.transport),
		rdmakv.WithEagerThreshold(c.threshold),
		rdmakv.WithTimeout(c.timeout),
		rdmakv.WithPoll(c.poll),
		rdmakv.WithAuth(c.auth),
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
	authFile := fs.String("auth-file", "", "file holding the server's shared secret (kvserver --auth-file)")
	fs.BoolVar(&c.check, "check", false, "end-to-end check (required): set, get, verify and delete across eager and rendezvous sizes")
	fs.IntVar(&c.maxCheck, "check-max", 3<<20, "largest value size the check moves")
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
	if p, err := rdmakv.ParsePoll(*poll); err != nil {
		errs = append(errs, "-"+err.Error())
	} else {
		c.poll = p
	}
	if *authFile != "" {
		secret, err := rdmakv.ReadSecret(*authFile)
		if err != nil {
			errs = append(errs, "-auth-file: "+err.Error())
		}
		c.auth = secret
	}
	if !c.check {
		errs = append(errs, "-check is required (benchmarks are kvbench's: kvbench run, make bench-rdma)")
	}
	if c.threshold < 0 {
		errs = append(errs, fmt.Sprintf("-threshold %d is negative", c.threshold))
	}
	if c.timeout <= 0 {
		errs = append(errs, fmt.Sprintf("-timeout %v must be positive", c.timeout))
	}
	if c.maxCheck < 1 {
		errs = append(errs, fmt.Sprintf("-check-max %d must be positive", c.maxCheck))
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
