package bench

// Exported to the bench_test package.

const Tick = tick

var (
	TickClock  = tickClock
	ProcessCPU = processCPU
)

// SetClock times cfg's phases on clock, in nanoseconds.
func SetClock(cfg *Config, clock func() int64) { cfg.clock = clock }
