package bench

import (
	"time"

	"github.com/kvbench/kvbench/rdmakv/monotime"
)

// nanotime is the monotonic clock rdmakv reads too (monotime); workers
// read it twice per operation.
func nanotime() int64 { return monotime.Now() }

// epoch is when a phase started: the wall-clock time results carry, and
// the monotonic reading that offsets within the phase are measured from.
type epoch struct {
	t  time.Time
	ns int64
	// clock is the monotonic clock: nanotime, or in a test a fake clock
	// (Config.clock), so that the test can know exactly what the harness
	// measures.
	clock func() int64
}

func newEpoch() epoch { return newEpochOn(nil) }

// newEpochOn is newEpoch on clock (nil: nanotime).
func newEpochOn(clock func() int64) epoch {
	if clock == nil {
		clock = nanotime
	}
	return epoch{t: time.Now(), ns: clock(), clock: clock}
}

// since is the time elapsed since e.
func (e epoch) since() time.Duration { return time.Duration(e.clock() - e.ns) }
