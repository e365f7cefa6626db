// Package rdmakv is a key-value store over RDMA verbs (or a TCP emulation
// of them). Small requests travel eager, inline in one SEND; large ones
// rendezvous: the server hands out an address and a remote key and the
// client moves the value with one-sided RDMA WRITE_WITH_IMM (set) or READ
// (get). The switch point is the client's eager threshold.
//
// docs/PROTOCOL.md describes the wire protocol.
package rdmakv
