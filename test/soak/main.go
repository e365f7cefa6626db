// Command kvsoak runs kvserver under a verified mixed load from several
// kvbench processes and from verified writers of its own, while a fault
// schedule runs: clients killed mid-rendezvous, the server stopped for a
// second, connection churn, floods of idle connections and garbage frames.
// At the end it reads back every key its writers own and checks the server
// for leaks. It prints its figures and exits 1 if anything was lost, torn,
// wrong or leaked. make soak runs it; make test runs a 60-second version.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/kvbench/kvbench/rdmakv/tcp"
	_ "github.com/kvbench/kvbench/rdmakv/verbs"
)

func main() {
	var o options
	flag.DurationVar(&o.duration, "duration", 10*time.Minute, "whole soak: warm-up, faults, then a quiet settle before the checks")
	flag.StringVar(&o.transport, "transport", "tcp", "tcp or verbs")
	flag.StringVar(&o.listen, "listen", "127.0.0.1:0", "address kvserver listens on (verbs: the RDMA interface's address)")
	flag.StringVar(&o.bin, "bin", "bin", "directory holding the kvserver and kvbench binaries")
	flag.StringVar(&o.work, "work", "", "directory for server logs and kvbench results (default: a new temporary one, removed on success)")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the fault schedule and of the writers' operations")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "kvsoak: unexpected arguments %q\n", flag.Args())
		os.Exit(2)
	}
	if err := o.validate(); err != nil {
		fmt.Fprintln(os.Stderr, "kvsoak:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := run(ctx, o)
	if rep != nil && rep.warm.mem.anon > 0 { // the load had begun
		rep.print(os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kvsoak:", err)
		os.Exit(1)
	}
	if fails := rep.failures(); len(fails) > 0 {
		for _, f := range fails {
			fmt.Fprintln(os.Stderr, "kvsoak: FAIL:", f)
		}
		fmt.Fprintln(os.Stderr, "kvsoak: server log and kvbench results kept in", rep.work)
		os.Exit(1)
	}
	fmt.Println("PASS")
	if !o.keep {
		os.RemoveAll(rep.work)
	}
}
