package bench

import "github.com/kvbench/kvbench/internal/store"

// Exported to the bench_test package.

const Tick = tick

var (
	TickClock  = tickClock
	ProcessCPU = processCPU
)

// SetClock times cfg's phases on clock, in nanoseconds.
func SetClock(cfg *Config, clock func() int64) { cfg.clock = clock }

// HarnessOf is a harness over st whose DeviceCounters reads devices under
// sysfs.
func HarnessOf(st store.Store, sysfs string) *Harness {
	return &Harness{Store: st, sysfs: sysfs}
}

// SetHostRoot makes cfg's host checks read proc and sys under root.
func SetHostRoot(cfg *Config, root string) { cfg.hostRoot = root }
