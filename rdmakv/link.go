package rdmakv

import "github.com/kvbench/kvbench/rdmakv/transport"

// Poll selects how a client or server waits for completions: PollEvent
// sleeps until woken, PollBusy spins (verbs only; tcp always waits on its
// socket). Its text form is "event" or "busy".
type Poll = transport.Poll

// Polling modes.
const (
	PollEvent = transport.PollEvent
	PollBusy  = transport.PollBusy
)

// ParsePoll reads "event" or "busy".
func ParsePoll(s string) (Poll, error) { return transport.ParsePoll(s) }

// Receives chooses where a verbs server posts its receive buffers: one
// queue shared by its connections (ReceivesShared), one per connection
// (ReceivesPerConn), or shared where the device has a shared receive
// queue (ReceivesAuto). Its text form is "auto", "shared" or
// "per-connection".
type Receives = transport.Receives

// Receive queue choices.
const (
	ReceivesAuto    = transport.ReceivesAuto
	ReceivesShared  = transport.ReceivesShared
	ReceivesPerConn = transport.ReceivesPerConn
)

// ParseReceives reads "auto", "shared" or "per-connection".
func ParseReceives(s string) (Receives, error) { return transport.ParseReceives(s) }

// Info describes the link under a client or server: the transport chosen
// (after "auto" is settled), the RDMA device and port, and the polling mode
// actually in use.
type Info = transport.Info

// Link is the RDMA device and port in an Info (empty on tcp).
type Link = transport.Link

// ErrNoDevice means no RDMA device is usable (transport verbs).
var ErrNoDevice = transport.ErrNoDevice
