// Package traceclock is the clock rdmakv's request tracing reads. Where
// the CPU has an invariant time-stamp counter (amd64) it reads that
// counter, which costs a third to a half of a read of the runtime's
// monotonic clock, and scales it to nanoseconds by a rate measured
// against that clock, as the Go runtime does for its block and mutex
// profiles. Elsewhere, or with RDMAKV_TRACE_CLOCK=monotonic, it is the
// runtime's monotonic clock itself.
package traceclock

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/kvbench/kvbench/rdmakv/monotime"
)

// Env names the environment variable that chooses the clock: "tsc" (the
// default where there is one) or "monotonic".
const Env = "RDMAKV_TRACE_CLOCK"

// span is how long calibration measures the counter's rate over: two
// paired readings a few tens of nanoseconds wide each, 5 ms apart, give
// the rate to about 1e-5, a nanosecond in a 100 µs phase.
const span = 5 * time.Millisecond

// clock is a choice of clock and, for the counter, its calibration: a
// reading t is nsBase + (t - tickBase) × nsPerTick nanoseconds.
type clock struct {
	tsc              bool
	tickBase, nsBase int64
	nsPerTick        float64
}

var (
	once sync.Once
	err  error
	c    clock
)

// Init chooses and calibrates the clock, once per process; call it before
// the first Now. Its first call on a counter clock takes 5 ms. It
// fails only for a value of RDMAKV_TRACE_CLOCK it does not know.
func Init() error {
	once.Do(func() { c, err = setup(os.Getenv(Env)) })
	return err
}

func setup(want string) (clock, error) {
	switch want {
	case "monotonic":
		return clock{}, nil
	case "", "tsc":
		if !haveTSC() {
			return clock{}, nil
		}
	default:
		return clock{}, fmt.Errorf("%s=%q: want tsc or monotonic", Env, want)
	}
	t0, n0 := pair(rdtsc)
	time.Sleep(time.Duration(n0 + int64(span) - nanotime()))
	t1, n1 := pair(rdtsc)
	rate := float64(n1-n0) / float64(t1-t0)
	// A counter outside 100 MHz..100 GHz is not a clock to trust.
	if !(rate > 0.01 && rate < 10) {
		return clock{}, nil
	}
	return clock{tsc: true, tickBase: t1, nsBase: n1, nsPerTick: rate}, nil
}

// pair reads read on either side of a monotonic clock reading and keeps
// the narrowest of a few tries, so that a preemption between the reads
// does not skew the rate; a try whose two reads went backwards (a move to
// another CPU) is not a width at all.
func pair(read func() int64) (ticks, ns int64) {
	best := int64(-1)
	for range 5 {
		a := read()
		n := nanotime()
		b := read()
		if w := b - a; w >= 0 && (best < 0 || w < best) {
			best, ticks, ns = w, a+w/2, n
		}
	}
	return ticks, ns
}

// Now is a reading of the clock in its own units; Nanos and Duration turn
// readings into nanoseconds.
func Now() int64 { return c.now() }

// Nanos converts a reading to nanoseconds on the runtime's monotonic
// clock's scale. Readings of one process are comparable with each other
// only: the counter and the runtime's clock drift apart slowly.
func Nanos(t int64) int64 { return c.nanos(t) }

// Duration is the time from reading a to reading b.
func Duration(a, b int64) time.Duration { return c.duration(a, b) }

func (c *clock) now() int64 {
	if c.tsc {
		return rdtsc()
	}
	return nanotime()
}

func (c *clock) nanos(t int64) int64 {
	if c.tsc {
		return c.nsBase + int64(float64(t-c.tickBase)*c.nsPerTick)
	}
	return t
}

func (c *clock) duration(a, b int64) time.Duration {
	if c.tsc {
		return time.Duration(float64(b-a) * c.nsPerTick)
	}
	return time.Duration(b - a)
}

func nanotime() int64 { return monotime.Now() }
