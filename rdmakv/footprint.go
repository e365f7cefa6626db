package rdmakv

import (
	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// The transport configurations Listen and Dial ask their networks for,
// exported so that a tool can say what a server or client registers
// (verbs.RegisteredBytes) without opening one.

// TransportConfig is the transport configuration Listen opens c's
// network with, before any connection has asked for credit: its shared
// receive queue (verbs) may still grow to MaxRecvDepth.
func (c ServerConfig) TransportConfig() transport.Config {
	return c.withDefaults().transportConfig()
}

// LoadedTransportConfig is TransportConfig with MaxRecvDepth at what the
// shared receive queue grows to once connections clients, each keeping
// depth requests in flight, hold all the credit they ask for: their
// receives and the handshakes' reserve, a RecvDepth at a time, at most
// MaxRecvs.
func (c ServerConfig) LoadedTransportConfig(connections, depth int) transport.Config {
	c = c.withDefaults()
	t := c.transportConfig()
	want := connections * min(2*max(depth, 1), c.RecvDepth)
	posted := c.RecvDepth
	for posted < c.MaxRecvs && posted-poolReserve(posted, c.MaxHandshakes) < want {
		posted += c.RecvDepth
	}
	t.MaxRecvDepth = min(posted, c.MaxRecvs)
	return t
}

func (c ServerConfig) transportConfig() transport.Config {
	return transport.Config{
		MaxMessage: c.recvSize(),
		RecvDepth:  c.RecvDepth,
		SendDepth:  c.RecvDepth,

		MaxRecvDepth: c.MaxRecvs,
		Receives:     c.Receives,
		Poll:         c.Poll,
		BusyIdle:     c.BusyIdle,
		Device:       c.Device,
		OpTimeout:    c.Lease,

		StallTimeout: c.StallTimeout,
		TOS:          c.TOS,
		NetConn:      c.NetConn,
	}
}

// ClientTransportConfig is the transport configuration Dial opens its
// connection with, given opts: receives for its depth, the replies it
// may hold and the late replies to requests it gave up, each as large as
// the largest eager reply at its threshold (under a profile, the larger
// of its get and set thresholds); and sends as large as a
// request with the longest key a server may take, whatever the
// threshold.
func ClientTransportConfig(opts ...Option) transport.Config {
	o := newOptions(opts)
	o.resolveAdaptive()
	return o.transportConfig()
}

func (o options) transportConfig() transport.Config {
	return transport.Config{
		MaxMessage: wire.MaxHeaderSize + max(o.threshold, wire.LimitsSize),
		MaxSend:    wire.MaxHeaderSize + max(o.threshold, wire.MaxKeyLen),
		RecvDepth:  o.depth + recvSpare + lateSpare,
		SendDepth:  2*o.depth + 8,
		Poll:       o.poll,
		Device:     o.device,
		OpTimeout:  o.timeout,
		Blocking:   o.blocking,
		NetConn:    o.netConn,
		TOS:        o.tos,
	}
}
