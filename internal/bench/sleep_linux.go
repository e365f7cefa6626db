package bench

import (
	"syscall"
	"time"
)

// preciseSleep blocks the calling thread in nanosleep for d (see fineWait).
// An interrupted call sleeps the remainder.
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var left syscall.Timespec
		if err := syscall.Nanosleep(&ts, &left); err != syscall.EINTR {
			return
		}
		ts = left
	}
}
