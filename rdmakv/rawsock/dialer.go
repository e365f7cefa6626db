package rawsock

import (
	"context"
	"fmt"
	"net"
	"time"
)

// BlockDialer dials BlockConns: on Linux, blocking sockets; elsewhere,
// where there are none, Conns under the poller with the same slack on
// deadlines.
type BlockDialer struct {
	// Timeout bounds a connect, as ctx's deadline does (0: ctx alone).
	Timeout time.Duration
	// Slack is how long after its deadline a wait may end: a deadline
	// reaches the socket only when it would end a wait early or more than
	// the slack late.
	Slack time.Duration
	// MaxWait, if not 0, bounds one wait in the kernel: a wait longer than
	// that wakes to look at its deadline again, so that a deadline moved
	// earlier takes effect within MaxWait plus the slack. Off Linux a
	// deadline moved earlier takes effect at once.
	MaxWait time.Duration
}

// DialContext has net.Dialer.DialContext's signature, for client
// libraries that take a dial function.
func (d BlockDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return d.dialConn(ctx, network, addr)
}

// checkTCP refuses a network other than TCP, as a dial's error.
func checkTCP(network string) error {
	switch network {
	case "tcp", "tcp4", "tcp6":
		return nil
	}
	return &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("rawsock: network %q is not TCP", network)}
}
