package rdmakvstore

import (
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// Polling modes (workload target.poll).
const (
	PollBusy  = "busy"
	PollEvent = "event"
)

// EmbeddedBusyIdle is how long a busy embedded server's receive poller
// spins with no request before it sleeps until the next (kvserver
// --busy-idle). On Soft-RoCE a server that spins through a long one-sided
// transfer slowed a 1 MiB SET by about a fifth; 5 ms outlasts a 64 KiB
// READ there, so GETs rarely pay the 1-2 ms wake-up.
const EmbeddedBusyIdle = 5 * time.Millisecond

// pollMode is what the harness asks of rdmakv for the workload's poll
// setting: busy unless told event, as perftest polls. A transport that
// cannot busy-poll (tcp) waits on its socket all the same, and its Info
// says so.
func pollMode(poll string) rdmakv.Poll {
	if poll == PollEvent {
		return rdmakv.PollEvent
	}
	return rdmakv.PollBusy
}
