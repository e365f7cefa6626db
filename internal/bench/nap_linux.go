//go:build linux

package bench

import (
	"syscall"
	"time"
)

// napSlack is how much earlier than needed a nap aims: nanosleep ends late
// by the thread's timer slack (50 µs by default) plus the wake-up latency,
// measured here at about 80 µs typical and 140 µs at p99 on a loaded
// machine. The dispatcher spins the rest.
const napSlack = 150 * time.Microsecond

// nap blocks the thread in nanosleep for d. Unlike a runtime timer it is
// not rounded up to milliseconds; unlike a spin it leaves the core to
// others. The goroutine keeps its P while in the syscall (the runtime may
// hand the P off), which is why only the dispatcher naps, and only within
// spinWindow of an intended start.
func nap(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	_ = syscall.Nanosleep(&ts, nil) // EINTR: waitUntil checks the clock again
}
