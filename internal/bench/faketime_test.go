package bench

import (
	"testing"
	"time"
)

// tick is the resolution of the fake clock (tickClock) that tests run a
// precisely paced open loop on.
const tick = 2 * time.Millisecond

// tickClock is a monotonic clock, in nanoseconds, for a harness running in
// a synctest bubble: the bubble's fake time rounded up to a whole tick
// (pass 1 for the fake time itself). Tests that run on it measure exact
// durations, whatever the load on the host.
//
// The rounding is for the dispatcher: fake time moves only while every
// goroutine in the bubble is blocked, so its nap (a real nanosleep) and
// spin towards an intended start would never end. For a slot whose
// intended start is on a tick, the clock reads at most the tick before
// until then: more than spinWindow before the release (as tick exceeds
// spinWindow+wakeLead, TestTickOutlastsTheSpin), so the dispatcher waits
// on its timer alone, and releases the slot when the tick comes.
func tickClock(tick time.Duration) func() int64 {
	q := int64(tick)
	return func() int64 { return (time.Now().UnixNano() + q - 1) / q * q }
}

func TestTickOutlastsTheSpin(t *testing.T) {
	if tick <= spinWindow+wakeLead {
		t.Fatalf("tick %v: a dispatcher on it would spin; want it above spinWindow+wakeLead, %v", tick, spinWindow+wakeLead)
	}
}
