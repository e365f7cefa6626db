package bench

import "github.com/kvbench/kvbench/rdmakv"

// Exported to the bench_test package.

const Tick = tick

var (
	TickClock  = tickClock
	ProcessCPU = processCPU
)

// SetClock times cfg's phases on clock, in nanoseconds.
func SetClock(cfg *Config, clock func() int64) { cfg.clock = clock }

// HarnessOnLink is a harness whose first connection reported info (nil:
// none dialed yet) and whose DeviceCounters reads devices under sysfs.
func HarnessOnLink(info *rdmakv.Info, sysfs string) *Harness {
	return &Harness{Rdmakv: &RdmakvDialer{info: info}, sysfs: sysfs}
}
