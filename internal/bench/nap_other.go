//go:build !linux

package bench

import "time"

// napSlack equal to spinWindow means waitUntil never naps here: without a
// known-precise sleep, the dispatcher spins the whole window.
const napSlack = spinWindow

// nap is never called where napSlack is spinWindow.
func nap(time.Duration) {}
