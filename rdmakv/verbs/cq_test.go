//go:build linux && cgo

package verbs

import (
	"testing"
	"time"
)

// A kick ends a sweeper's nap, however long, so shutdown does not wait
// out sweepEvery; the nap's timer serves nap after nap.
func TestKickEndsNap(t *testing.T) {
	q := &cq{nudge: make(chan struct{}, 1)}
	q.nap(time.Nanosecond)
	for i := range 3 {
		done := make(chan struct{})
		go func() {
			q.nap(time.Hour)
			close(done)
		}()
		q.kick()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("nap %d: still asleep a minute after the kick", i)
		}
		if !q.kicked.Swap(false) {
			t.Fatalf("nap %d: kick did not flag control", i)
		}
	}
}
