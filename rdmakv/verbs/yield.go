package verbs

import (
	"runtime"
	"sync/atomic"
	"time"
)

// yieldEvery is how often a goroutine that busy-polls with nothing
// arriving yields the processor (runtime.Gosched). A Gosched wakes another
// thread to take the goroutine over: after every empty burst, as before,
// that was a context switch per wait on each side of an eager round trip
// in the Soft-RoCE guest. Never yielding is worse: the runtime then sees
// one goroutine run for its whole 10 ms time slice and takes its processor
// away in the middle of a poll (eager GET p99 went from 1 to 5-9 ms).
const yieldEvery = 2 * time.Millisecond

// epoch is what yielder measures time from.
var epoch = time.Now()

// yielder paces runtime.Gosched in busy-poll loops to once per yieldEvery.
// The zero value is ready; loops that share one yield in turn, so a run of
// short waits yields as one long wait would.
type yielder struct{ last atomic.Int64 }

// Empty is called after a poll burst that found nothing, with the time
// of that burst. It yields, and reports true, when
// yieldEvery has passed since the last yield.
func (y *yielder) Empty(now time.Time) bool {
	t := int64(now.Sub(epoch))
	if t-y.last.Load() < int64(yieldEvery) {
		return false
	}
	y.last.Store(t)
	runtime.Gosched()
	return true
}
