package rdmakv

import "github.com/kvbench/kvbench/rdmakv/monotime"

// nanotime is the monotonic clock in nanoseconds (monotime).
func nanotime() int64 { return monotime.Now() }
