// Package rdmakv is a key-value store over RDMA verbs (or a TCP emulation
// of them). Small requests travel eager, inline in one SEND; large ones
// rendezvous: the server hands out an address and a remote key and the
// client moves the value with one-sided RDMA WRITE_WITH_IMM (set) or READ
// (get). The switch point is the client's eager threshold
// (WithEagerThreshold, 4 KiB by default), one for gets and one for
// sets chosen by the client's load from a Profile (WithProfile), as
// kvbench tune writes it, or, with WithAdaptiveThreshold, a choice per
// size class that follows the latencies the client measures.
//
// # Transports
//
// A transport registers itself when its package is linked in. The pure-Go
// tcp transport, the default, is always linked. The verbs transport needs
// cgo and rdma-core, so a program that wants RDMA imports it:
//
//	import _ "github.com/kvbench/kvbench/rdmakv/verbs"
//
// WithTransport and ServerConfig.Transport choose TransportTCP ("tcp",
// the default on both sides), TransportVerbs ("verbs") or TransportAuto
// ("auto": verbs when it is linked in and an RDMA device is usable, else
// tcp). What auto chose is logged on the logger given (WithLogger,
// ServerConfig.Logger) and reported by Client.Info and Server.Info, with
// the polling mode in use.
//
// Names follow the C API of RDMA key-value stores: Dial is kv_open, Set
// kv_set, Get kv_get, Value.Release kv_release, Close kv_close.
// docs/PROTOCOL.md describes the wire protocol.
package rdmakv

// The default transport needs no import of its own.
import _ "github.com/kvbench/kvbench/rdmakv/tcp"
