package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/kvbench/kvbench/internal/hwcounters"
	"github.com/kvbench/kvbench/internal/sizegen"
	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// Config is one run's plan: the cells (each eager threshold with each value
// size) and how to drive them.
type Config struct {
	// Seed derives every worker's random source; same seed, same operations.
	Seed uint64
	// Keys is the key space and distribution.
	Keys workload.Keys
	// ValueSizes and Thresholds span the cells, a grid of thresholds by
	// sizes, both ascending.
	ValueSizes []int
	Thresholds []int
	// Sizes, when set, is the law each value's size is drawn from (a
	// workload's values.distribution; ValueSize says how), in place of
	// its cell's size. ValueSizes then holds one entry, the size the
	// results give the cells (FromWorkload puts the law's mean, rounded,
	// there), so that there is one cell per threshold, and SizesSpec
	// names the law in them (results.Cell.Distribution).
	Sizes     sizegen.Distribution
	SizesSpec string
	// Trace, when set, is the trace each cell replays in place of drawing
	// its operations (Mix and the key distribution then go unused; keys
	// are as recorded, Keys.Size the longest). SizesSpec then names it,
	// and ValueSizes holds one entry, which ScanTrace sets.
	Trace *Replay
	// Order is the order the cells run in: workload.OrderInterleaved (the
	// default when empty) takes each size in turn at every threshold, each
	// cell on connections dialed for it; workload.OrderThresholds runs each
	// threshold's sizes in a row on one set of connections. Either way a
	// cell's operations are those of its place in the grid.
	Order string
	// AdaptiveMaxThreshold is the largest threshold an adaptive cell's
	// clients ask the server for (the workload's adaptive.max_threshold);
	// 0: rdmakv.DefaultMaxEager.
	AdaptiveMaxThreshold int
	// Mix gives the share of gets, sets and deletes.
	Mix workload.Mix
	// Preload writes every key with a value of the cell's size first
	// (with Sizes, of the size drawn for the key's version 0).
	Preload bool
	// Warmup runs unrecorded before Measure; an empty Warmup is skipped.
	Warmup, Measure workload.Phase
	// Load is the load model (closed or open loop, connections, depth, rate
	// or ramp, and for an open loop or a trace at a speed its pacing:
	// PacingPrecise, the default when empty, or PacingCoarse).
	Load workload.Load
	// Verify checks every get against what this run wrote (see shard).
	Verify bool
	// Rank and Ranks place this process among Ranks load generators (0 and
	// 0 or 1: alone). Workers are numbered across all ranks, rank r
	// holding r*W to r*W+W-1 of Ranks*W, so the ranks own disjoint keys
	// (verify stays exact), draw from streams derived from (seed, rank),
	// share measure-phase operation counts and issue disjoint slots of one
	// open-loop schedule at the workload's total rate.
	Rank, Ranks int
	// Sync, if set, is where the ranks of an MPI job meet: before each
	// cell's preload, warmup and measure phase, and once at the end. Each
	// rank says whether it wants to stop (interrupted, or failed: a rank
	// that fails calls it once more in place of its next meeting) and
	// learns whether any rank does, so all stop at the same point and all
	// measure the same windows. An error ends the run.
	Sync func(phase string, stop bool) (anyStop bool, err error)
	// Checkpoint, if set, gets the report so far after each cell's
	// measure phase (a rank of an MPI job keeps it on disk, in case the
	// job dies before rank 0 gathers the results). An error ends the run.
	Checkpoint func(*Report) error
	// OpPhases records each operation's phases (OpPhase) where the target
	// times them (OpPhasesFrom).
	OpPhases bool
	// FreshServer says the server started empty for this run (embedded), so
	// verify mode knows that keys never written must be absent.
	FreshServer bool
	// Dialer opens the connections.
	Dialer Dialer
	// Codec fills values and checks them in verify mode.
	Codec Codec
	// ServerCPU, if set, returns the server's CPU time so far (user and
	// system): each measure phase calls it just before its workers start
	// and after they all finish, outside the latency measurement, and
	// records the difference as the server's CPU over the phase. Each
	// call gets 5 s. A call that fails costs the cell its server figure
	// only, and the first failure is logged. Nil: the server's CPU is not
	// measured. It is not called when CPUProcess is set.
	ServerCPU func(ctx context.Context) (user, sys time.Duration, err error)
	// CPUProcess says the server runs inside this process (embedded): the
	// process's CPU time is then both sides' and cannot be split, so the
	// cells record it in process scope and have no server figure.
	CPUProcess bool
	// DeviceCounters, if set, reads the hardware counters of the RDMA
	// device under the run's connections (Harness.DeviceCounters): each
	// measure phase calls it just before its CPU clocks are read at the
	// start and just after they are read at the end, so that neither the
	// operations nor the CPU figures include it, and records what each
	// counter grew by. Nil counters (tcp, no device) record nothing; an
	// error costs the counters it names, and the first is logged.
	DeviceCounters func() (hwcounters.Counters, error)
	// ReceiveMemory, if set, is what the store registers to receive at a
	// threshold and load (store.ReceiveMemoryReporter): each measure phase
	// records its server's for the job's connections (every rank's) and
	// its clients' for this rank's. An error records nothing.
	ReceiveMemory func(threshold, keySize, connections, depth int) (server, client int64, err error)
	// Logger, if set, hears what a run fails to measure without failing
	// (a CPU or counter reading).
	Logger *slog.Logger
	// Observer, if set, hears about phases and progress.
	Observer Observer
	// Tick is how often the Observer gets progress; default 1s.
	Tick time.Duration

	// clock, when set, is the monotonic clock (nanoseconds) the phases
	// are timed on in place of the runtime's: a test's fake clock. Nil
	// outside tests.
	clock func() int64
	// hostRoot is where the host checks read proc and sys: "/" when
	// empty; a test's fixture directory.
	hostRoot string
}

// MaxThreshold is the largest threshold the run's clients ask the
// server for: an adaptive cell's (store.AdaptiveThreshold) asks for
// AdaptiveMaxThreshold, the most its policy may choose.
func (c *Config) MaxThreshold() int {
	m := 0
	for _, t := range c.Thresholds {
		if t == store.AdaptiveThreshold {
			t = cmp.Or(c.AdaptiveMaxThreshold, rdmakv.DefaultMaxEager)
		}
		m = max(m, t)
	}
	return m
}

// MaxValueSize is the largest value the run writes: the largest of
// ValueSizes, or of the law the sizes are drawn from.
func (c *Config) MaxValueSize() int {
	if c.Sizes != nil {
		return c.Sizes.Max()
	}
	if c.Trace != nil {
		return c.Trace.maxValue
	}
	if len(c.ValueSizes) == 0 {
		return 0
	}
	return slices.Max(c.ValueSizes)
}

// Workers is the number of concurrent operation issuers of this rank.
func (c *Config) Workers() int { return c.Load.Connections * c.Load.Depth }

// ranks is the number of ranks, at least 1.
func (c *Config) ranks() int { return max(c.Ranks, 1) }

// scheduled says operations have intended starts to wait for, paced as
// Load.Pacing says: an open loop, or a trace replayed at a speed.
func (c *Config) scheduled() bool {
	return c.Load.Mode == "open" || c.Trace != nil && c.Trace.paced()
}

// Validate reports every problem with the configuration.
func (c *Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Load.Connections < 1 {
		bad("load.connections %d: want >= 1", c.Load.Connections)
	}
	if c.Load.Depth < 1 {
		bad("load.depth %d: want >= 1", c.Load.Depth)
	}
	switch c.Load.Mode {
	case "closed":
	case "open":
		if c.Load.Ramp == nil && c.Load.Rate <= 0 {
			bad("load.rate %g: open loop needs a positive rate or a ramp", c.Load.Rate)
		}
		if r := c.Load.Ramp; r != nil {
			if _, err := NewRampPacer(r.Rates(), time.Duration(r.StepDuration)); err != nil {
				bad("load.%v", err)
			}
		}
	default:
		bad("load.mode %q: want closed or open", c.Load.Mode)
	}
	switch p := c.Load.Pacing; {
	case p != "" && !c.scheduled():
		bad("load.pacing %q: only used with mode open or a trace at a speed", p)
	case p != "" && p != PacingPrecise && p != PacingCoarse:
		bad("load.pacing %q: want %s or %s (empty: %s)", p, PacingPrecise, PacingCoarse, PacingPrecise)
	}
	if len(c.ValueSizes) == 0 {
		bad("values: no value sizes")
	}
	if c.Sizes != nil && len(c.ValueSizes) != 1 {
		bad("values: %d value sizes with a distribution of sizes, want one, which names its cells", len(c.ValueSizes))
	}
	for _, s := range c.ValueSizes {
		if s < 0 {
			bad("values: size %d is negative", s)
		}
	}
	if len(c.Thresholds) == 0 {
		bad("thresholds: none given")
	}
	switch c.Order {
	case "", workload.OrderInterleaved, workload.OrderThresholds:
	default:
		bad("order %q: want %s or %s (empty: %s)", c.Order, workload.OrderInterleaved, workload.OrderThresholds, workload.OrderInterleaved)
	}
	if c.Keys.Count < 1 {
		bad("keys.count %d: want >= 1", c.Keys.Count)
	}
	if c.Keys.Size < 1 {
		bad("keys.size %d: want >= 1", c.Keys.Size)
	} else if law := c.Keys.SizeLaw(); law != nil && law.Max() > c.Keys.Size {
		bad("keys.size %d: below the longest key the size distribution draws, %d", c.Keys.Size, law.Max())
	}
	if c.Trace != nil {
		errs = append(errs, c.validateTrace()...)
	} else if m := c.Mix; m.Get < 0 || m.Set < 0 || m.Delete < 0 || m.Get+m.Set+m.Delete <= 0 {
		bad("mix get=%g set=%g delete=%g: want non-negative shares with a positive sum", m.Get, m.Set, m.Delete)
	}
	for _, ph := range []struct {
		name string
		p    workload.Phase
	}{{"warmup", c.Warmup}, {"measure", c.Measure}} {
		if ph.p.Until != nil && !ph.p.Capped() {
			bad("phases.%s: until needs a cap, max_duration or max_ops", ph.name)
		}
	}
	if c.Measure.Duration <= 0 && c.Measure.Ops <= 0 && c.Measure.Until == nil && (c.Load.Mode != "open" || c.Load.Ramp == nil) && (c.Trace == nil || c.Trace.Loop) {
		bad("phases.measure: needs a duration or an operation count")
	}
	if c.Ranks < 0 || c.Rank < 0 || c.Rank >= c.ranks() {
		bad("rank %d of %d: want 0 <= rank < ranks", c.Rank, c.Ranks)
	}
	if all := c.Workers() * c.ranks(); c.Verify && c.Load.Connections >= 1 && c.Load.Depth >= 1 && c.Keys.Count < all {
		bad("verify: keys.count %d is below connections x depth x ranks = %d; verify mode gives each worker its own keys", c.Keys.Count, all)
	}
	if c.Dialer == nil {
		bad("no dialer")
	}
	if c.Codec == nil {
		bad("no value codec")
	}
	return errors.Join(errs...)
}
