package rdmakv

import _ "unsafe" // go:linkname

// nanotime is the runtime's monotonic clock in nanoseconds: one vDSO read,
// where time.Now reads the wall clock as well. Only differences between
// readings mean anything.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
