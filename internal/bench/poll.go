package bench

import (
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
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

// EffectivePoll is the mode a client or server on transport tr (tcp or
// verbs, after auto is settled) uses for the workload's poll setting:
// what was asked, busy when nothing was, and event on tcp, which waits on
// its socket whatever is asked.
func EffectivePoll(poll, tr string) string {
	switch {
	case tr != "verbs":
		return PollEvent
	case poll == "":
		return PollBusy
	}
	return poll
}

func transportPoll(mode string) transport.Poll {
	if mode == PollBusy {
		return transport.PollBusy
	}
	return transport.PollEvent
}
