//go:build !linux

package bench

import (
	"context"
	"net"
	"time"
)

// dialBlocking dials an ordinary net.Conn: blocking sockets are Linux's
// alone here (blockconn_linux.go).
func dialBlocking(ctx context.Context, d *net.Dialer, addr string, _ time.Duration) (net.Conn, error) {
	return d.DialContext(ctx, "tcp", addr)
}
