// Package monotime is the runtime's monotonic clock, the one clock rdmakv
// and kvbench's harness read around each operation: one vDSO read, where
// time.Now and time.Since read the wall clock as well, twice the cost
// (about 30 against 60 ns on a kvm-clock host, more under CPU emulation).
package monotime

import _ "unsafe" // go:linkname

// Now is the monotonic clock in nanoseconds. Only differences between
// readings mean anything.
//
//go:linkname Now runtime.nanotime
func Now() int64
