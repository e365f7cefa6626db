//go:build !linux

package rawsock

import "net"

// sockIO is what a Conn reads and writes through: off Linux, the
// net.TCPConn itself.
type sockIO = *net.TCPConn

func newSockIO(nc *net.TCPConn) (sockIO, error) { return nc, nil }
