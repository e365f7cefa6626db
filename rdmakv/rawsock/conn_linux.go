//go:build linux

package rawsock

import "net"

// sockIO is what a Conn reads and writes through: a Sock, with raw
// system calls.
type sockIO = *Sock

func newSockIO(nc *net.TCPConn) (sockIO, error) { return New(nc) }
