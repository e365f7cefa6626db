package doctor

import (
	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/verbs"
)

// footprint is what rdmakv registers over verbs at its defaults.
type footprint struct {
	Pool       int64 // the server's value pool
	ServerRecv int64 // its receive buffers, shared by all connections, grown to their most
	ServerRing int64 // the send ring of each connection
	Client     int64 // a client's receive buffers and send ring
	Staging    int64 // the most a client registers for rendezvous payloads
}

// defaultFootprint sizes the transport as rdmakv.Listen and rdmakv.Dial do
// at the defaults, the server's receive queue grown to its most, and asks
// verbs what that registers.
func defaultFootprint() footprint {
	srv := rdmakv.ServerConfig{}.TransportConfig()
	cli := rdmakv.ClientTransportConfig()
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
