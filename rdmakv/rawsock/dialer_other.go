//go:build !linux

package rawsock

import (
	"context"
	"net"
)

// dialConn is DialContext's: without blocking sockets, a Conn under the
// poller with the dialer's slack.
func (d BlockDialer) dialConn(ctx context.Context, network, addr string) (net.Conn, error) {
	if err := checkTCP(network); err != nil {
		return nil, err
	}
	nd := net.Dialer{Timeout: d.Timeout, KeepAlive: -1}
	return Dial(&nd, d.Slack)(ctx, network, addr)
}
