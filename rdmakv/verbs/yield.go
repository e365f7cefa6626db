//go:build linux && cgo

package verbs

import (
	"runtime"
	"sync/atomic"
	"time"
)

// yieldEvery is how often a goroutine that busy-polls with nothing
// arriving yields the processor (runtime.Gosched). A Gosched wakes another
// thread to take the goroutine over, on the poller's own CPU when the
// process is pinned to one: yielding after every empty burst cost a
// context switch per wait on each side of an eager round trip in the
// Soft-RoCE guest, and a wake-up during a rendezvous GET's READ holds off
// rxe's deferred work on that CPU.
// Eight alternating rounds of 64 KiB rendezvous GETs in one guest boot
// had a p50 of 2.29 ms at the median yielding every 2 ms and 1.64 ms every
// 5 ms. Never yielding is worse: the runtime then sees one goroutine run
// for its whole 10 ms time slice and takes its processor away in the
// middle of a poll (eager GET p99 went from 1 to 5-9 ms); 5 ms stays well
// inside that slice.
const yieldEvery = 5 * time.Millisecond

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
