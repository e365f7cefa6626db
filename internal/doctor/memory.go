package doctor

import (
	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/verbs"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// footprint is what rdmakv registers over verbs at its defaults.
type footprint struct {
	Pool       int64 // the server's value pool
	ServerRecv int64 // its receive buffers, shared by all connections, grown to their most
	ServerRing int64 // the send ring of each connection
	Client     int64 // a client's receive buffers and send ring
	Staging    int64 // the most a client registers for rendezvous payloads
}

// clientSpare mirrors rdmakv's recvSpare: receive buffers a client has
// beyond its depth.
const clientSpare = 8

// defaultFootprint sizes the transport as rdmakv.Listen and rdmakv.Dial do
// (server.go, client.go) at the defaults, and asks verbs what that
// registers.
func defaultFootprint() footprint {
	srv := transport.Config{
		MaxMessage: wire.MaxHeaderSize + max(rdmakv.DefaultMaxEager, rdmakv.DefaultMaxKey, wire.HelloBodySize),
		RecvDepth:  rdmakv.DefaultRecvDepth,
		SendDepth:  rdmakv.DefaultRecvDepth,

		MaxRecvDepth: rdmakv.DefaultMaxRecvs,
	}
	cli := transport.Config{
		MaxMessage: wire.MaxHeaderSize + max(rdmakv.DefaultEagerThreshold, wire.LimitsSize),
		RecvDepth:  rdmakv.DefaultDepth + clientSpare,
		SendDepth:  2*rdmakv.DefaultDepth + 8,
	}
	f := footprint{Pool: rdmakv.DefaultPoolSize, Staging: rdmakv.DefaultStagingSize}
	f.ServerRecv, f.ServerRing, _ = verbs.RegisteredBytes(srv)
	recv, ring, _ := verbs.RegisteredBytes(cli)
	f.Client = recv + ring
	return f
}

// oneProcess is what a process holding a server with one connection and
// a client registers: kvbench run with its embedded server, the most any
// one process needs at the defaults.
func (f footprint) oneProcess() int64 {
	return f.Pool + f.ServerRecv + f.ServerRing + f.Client + f.Staging
}
