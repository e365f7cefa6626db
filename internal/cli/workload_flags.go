package cli

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// workloadFlags are the flags that override a workload file, shared by run
// and tune. Only the flags the user set override (defaults, then YAML, then
// flags).
type workloadFlags struct {
	server, transport  string
	poll, authFile     string
	order              string
	duration, warmup   time.Duration
	connections, depth int
	rate               float64
	seed               uint64
	verify, phases     bool
	// lists, for tune, holds --connections, --depth and --rate as lists;
	// their first values override the workload like run's single ones.
	lists *loadLists
}

// loadLists are the loads tune compares at: every combination.
type loadLists struct {
	conns, depths []int
	rates         []float64
}

// registerTarget adds the flags every workload command has; durationHelp
// says what --duration replaces for that command.
func (f *workloadFlags) registerTarget(cmd *cobra.Command, durationHelp string) {
	fl := cmd.Flags()
	fl.StringVar(&f.server, "server", "", "rdmakv server host:port (default: the workload's target.server, else an embedded server)")
	fl.StringVar(&f.transport, "transport", "", "transport: "+strings.Join(rdmakv.Transports(), ", ")+" (default: the workload's target.transport)")
	fl.StringVar(&f.poll, "poll", "", "completion polling on verbs: busy or event (default: the workload's target.poll, else busy)")
	fl.StringVar(&f.authFile, "auth-file", "", "file holding the server's shared secret (default: the workload's target.auth_file); an embedded server requires it")
	fl.DurationVar(&f.duration, "duration", 0, durationHelp)
	fl.DurationVar(&f.warmup, "warmup", 0, "unrecorded warmup before each measure phase, replacing the workload's phases.warmup (0: none)")
	fl.Uint64Var(&f.seed, "seed", 0, "seed for every random choice; same seed, same operations")
	fl.BoolVar(&f.phases, "phases", false, "record a histogram per phase of the operations: client, network, server and the rendezvous steps (op_phases)")
	cmd.RegisterFlagCompletionFunc("transport", cobra.FixedCompletions(rdmakv.Transports(), cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("poll", cobra.FixedCompletions([]string{"busy", "event"}, cobra.ShellCompDirectiveNoFileComp))
}

// registerLoad adds the flags that change the load model, the checking and
// the cell order (run).
func (f *workloadFlags) registerLoad(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&f.connections, "connections", 0, "client connections (load.connections)")
	fl.IntVar(&f.depth, "depth", 0, "operations in flight per connection (load.depth)")
	fl.Float64Var(&f.rate, "rate", 0, "run open loop at this many ops/s over all connections (load.rate)")
	fl.BoolVar(&f.verify, "verify", false, "check every get against what was written (--verify=false turns it off)")
	fl.StringVar(&f.order, "order", "", "cell order: interleaved (each value size at every threshold in turn, fresh connections per cell) or thresholds (each threshold's sizes in a row on one set of connections) (default: the workload's order, else interleaved)")
	cmd.RegisterFlagCompletionFunc("order", cobra.FixedCompletions(workload.Orders, cobra.ShellCompDirectiveNoFileComp))
}

// overrides collects the flags the user set; the rest leave the file alone.
// A flag the command does not have is never Changed.
func (f *workloadFlags) overrides(cmd *cobra.Command) workload.Overrides {
	var o workload.Overrides
	set := cmd.Flags().Changed
	if set("server") {
		o.Server = &f.server
	}
	if set("transport") {
		o.Transport = &f.transport
	}
	if set("poll") {
		o.Poll = &f.poll
	}
	if set("auth-file") {
		o.AuthFile = &f.authFile
	}
	if set("warmup") {
		o.Warmup = &f.warmup
	}
	if set("duration") {
		o.Measure = &f.duration
	}
	conns, depth, rate := &f.connections, &f.depth, &f.rate
	if l := f.lists; l != nil {
		conns, depth, rate = first(l.conns), first(l.depths), first(l.rates)
	}
	if set("connections") {
		o.Connections = conns
	}
	if set("depth") {
		o.Depth = depth
	}
	if set("rate") {
		o.Rate = rate
	}
	if set("order") {
		o.Order = &f.order
	}
	if set("seed") {
		o.Seed = &f.seed
	}
	if set("verify") {
		o.Verify = &f.verify
	}
	if set("phases") {
		o.OpPhases = &f.phases
	}
	return o
}

// first points to a list's first value (to a zero when it is empty, which
// validation then refuses).
func first[T any](list []T) *T {
	if len(list) == 0 {
		return new(T)
	}
	return &list[0]
}

// load reads a workload file, applies the flags the user set, and validates
// the result (errors name the file and line, or the flag).
func (f *workloadFlags) load(cmd *cobra.Command, file string) (*workload.Workload, error) {
	w, err := workload.LoadFile(file)
	if err != nil {
		return nil, err
	}
	w.ApplyOverrides(f.overrides(cmd))
	if err := w.Validate(); err != nil {
		return nil, err
	}
	return w, nil
}
