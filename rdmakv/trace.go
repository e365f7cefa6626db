package rdmakv

import (
	"context"
	"fmt"
	"time"

	"github.com/kvbench/kvbench/rdmakv/internal/traceclock"
)

// Op names a request in a Trace.
type Op uint8

// Requests.
const (
	OpGet Op = iota + 1
	OpSet
	OpDelete
)

func (o Op) String() string {
	switch o {
	case OpGet:
		return "get"
	case OpSet:
		return "set"
	case OpDelete:
		return "delete"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// ParseOp reads "get", "set" or "delete".
func ParseOp(s string) (Op, error) {
	for o := OpGet; o <= OpDelete; o++ {
		if s == o.String() {
			return o, nil
		}
	}
	return 0, fmt.Errorf("op %q: want get, set or delete", s)
}

// MarshalText writes the op's name; an op without one is an error.
func (o Op) MarshalText() ([]byte, error) {
	if o < OpGet || o > OpDelete {
		return nil, fmt.Errorf("op %d: want get, set or delete", uint8(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText reads what MarshalText writes.
func (o *Op) UnmarshalText(b []byte) error {
	v, err := ParseOp(string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// Trace is where one request's time went. The times are in nanoseconds,
// comparable with each other only: readings of the CPU's invariant
// time-stamp counter where it has one (amd64), scaled by a rate measured
// against the runtime's monotonic clock, or of that clock itself elsewhere
// and with RDMAKV_TRACE_CLOCK=monotonic (see WithTrace). Server and
// ServerCommit come from the server, which times each
// traced request from its arrival to its reply's post, so a round trip
// splits into the server's part and the network's (both NICs, the wire
// and the client's completion handling).
//
// An eager request has Start and End: its one round trip. A rendezvous
// GET has Start (GET posted), Granted (the server's window arrived),
// Staged (a staging buffer for the value is ready), Moved (the READ
// completed) and End (the release posted; with a transport that closes
// the window itself, the release goes with the READ and End follows
// Moved at once). A rendezvous SET has Start (SET_RDV_REQ posted, once a
// staging buffer is ready), Staged (the value copied into staging, which
// overlaps the request's round trip), Granted (the grant arrived), Moved
// (the WRITE and its commit posted) and End (SET_REPLY arrived). A
// transport that posts synchronously (TCP) returns from the post once
// the payload is on its way, possibly after the server has committed it,
// so the commit lies between Granted and End, not always after Moved.
type Trace struct {
	Op       Op
	Protocol Protocol
	Start    int64
	Granted  int64
	Staged   int64
	Moved    int64
	End      int64
	// Server is the server's time on the request (eager) or from the
	// request to its grant (rendezvous): lookup and copy, or the choice of
	// a window and, where the bind is synchronous, its bind (on verbs the
	// server posts the bind and answers behind it, so the bind's time is
	// in the round trip).
	Server time.Duration
	// ServerCommit is, for a rendezvous SET that was granted, the
	// server's time from the commit's arrival to SET_REPLY: storing the
	// value.
	ServerCommit time.Duration
}

// WithTrace has the client time every request and call fn with the
// result, on the requesting goroutine, just before Get, Set or Delete
// returns; ctx is the request's context, so fn can find the caller's
// own records in it. fn runs for each request that got its replies,
// whatever their status, and not for one that failed on the way (a
// timeout, a closed connection). The Trace belongs to the client: fn
// must copy what it keeps. Tracing allocates nothing; it reads the clock
// two (eager) to five (rendezvous) times per request on the client and
// twice per reply on the server, and adds 4 bytes to each reply. Off by
// default, and then it costs a few comparisons per request.
//
// The clock is the time-stamp counter where the CPU's is invariant: a
// read costs a third to a half of the runtime's clock, which on a virtual
// machine's paravirtual clock is tens of nanoseconds. A process's first
// server, or its first client that traces, measures the counter's rate
// over 5 ms.
// On a host whose CPUs' counters are not in step, set
// RDMAKV_TRACE_CLOCK=monotonic in the environment of both the client and
// the server; any other value than tsc or monotonic fails Dial and Listen.
func WithTrace(fn func(ctx context.Context, t *Trace)) Option {
	return func(o *options) { o.trace = fn }
}

// traceStart begins s's trace, when tracing, as the request is posted.
func (c *Client) traceStart(s *cslot, op Op) {
	if c.opts.trace != nil {
		s.trace = Trace{Op: op, Start: traceclock.Now()}
	}
}

// traceAt stamps one of s's phase ends (End, for a request whose hook
// must wait until nothing can fail any more).
func (c *Client) traceAt(t *int64) {
	if c.opts.trace != nil {
		*t = traceclock.Now()
	}
}

// traceGrant stamps the arrival of s's rendezvous grant, whose frame
// carries the server's time on the request.
func (c *Client) traceGrant(s *cslot) {
	if c.opts.trace != nil {
		s.trace.Granted, s.trace.Server = traceclock.Now(), time.Duration(s.frame.Server)
	}
}

// traceEnd completes s's trace and hands it to the hook. The last reply
// received times the request (eager) or, after a grant, a SET's commit.
func (c *Client) traceEnd(ctx context.Context, s *cslot, p Protocol) {
	if c.opts.trace == nil {
		return
	}
	t := &s.trace
	t.Protocol = p
	if t.End == 0 {
		t.End = traceclock.Now()
	}
	switch {
	case t.Granted == 0:
		t.Server = time.Duration(s.frame.Server)
	case t.Op == OpSet && t.Moved != 0:
		t.ServerCommit = time.Duration(s.frame.Server)
	}
	for _, at := range []*int64{&t.Start, &t.Granted, &t.Staged, &t.Moved, &t.End} {
		if *at != 0 {
			*at = traceclock.Nanos(*at)
		}
	}
	c.opts.trace(ctx, t)
}
