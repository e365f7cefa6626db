//go:build !linux

package bench

import "time"

// preciseSleep falls back to the runtime's timer where nanosleep is not
// wired up; waits then carry the runtime's timer granularity.
func preciseSleep(d time.Duration) { time.Sleep(d) }
