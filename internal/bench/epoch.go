package bench

import (
	"time"
	_ "unsafe" // go:linkname
)

// nanotime is the runtime's monotonic clock in nanoseconds: one vDSO read,
// where time.Since reads the wall clock as well, twice the cost (about 30
// against 60 ns on a kvm-clock host, more under CPU emulation). Workers
// read the clock twice per operation.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// epoch is when a phase started: the wall-clock time results carry, and
// the monotonic reading that offsets within the phase are measured from.
type epoch struct {
	t  time.Time
	ns int64
}

func newEpoch() epoch { return epoch{t: time.Now(), ns: nanotime()} }

// since is the time elapsed since e.
func (e epoch) since() time.Duration { return time.Duration(nanotime() - e.ns) }
