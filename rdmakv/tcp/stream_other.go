//go:build !linux

package tcp

import (
	"context"
	"net"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Off Linux every connection's socket is read and written through
// net.Conn (netStream): there are no raw system calls (rdmakv/rawsock),
// and so no blocking sockets (transport.Config.Blocking).

// rawSockets says whether connections may take the raw path.
const rawSockets = false

// acceptStream is an accepted connection's stream, and what its guard
// peeks at.
func acceptStream(nc *net.TCPConn, _ transport.Config) (stream, peeker, error) {
	return acceptNetStream(nc)
}

// dialStream connects a stream.
func dialStream(ctx context.Context, addr string, _ transport.Config) (stream, error) {
	return dialNetStream(ctx, addr)
}
