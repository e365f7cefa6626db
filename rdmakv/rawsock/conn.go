package rawsock

import (
	"context"
	"io"
	"net"
	"sync"
	"time"
)

// Conn is a TCP net.Conn whose reads and writes go through a Sock (off
// Linux, through the net.TCPConn), for a client library that takes a dial
// function. Such libraries also set a deadline before each request, which
// on a net.Conn re-arms the runtime's timers each time; a Conn passes a
// deadline to the socket only when it would otherwise fire early or more
// than Slack late, so a deadline fires at or up to Slack after the time it
// names, never before.
type Conn struct {
	*net.TCPConn
	sock  sockIO
	slack time.Duration

	mu     sync.Mutex
	rd, wd time.Time // the deadlines the socket has
}

// NewConn is a Conn over nc, which it owns from then on.
func NewConn(nc *net.TCPConn, slack time.Duration) (*Conn, error) {
	s, err := newSockIO(nc)
	if err != nil {
		return nil, err
	}
	return &Conn{TCPConn: nc, sock: s, slack: slack}, nil
}

// Dial returns a dial function (the signature of net.Dialer.DialContext)
// whose connections are Conns with the given slack.
func Dial(d *net.Dialer, slack time.Duration) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc, ok := nc.(*net.TCPConn)
		if !ok {
			return nc, nil // a network without a TCP socket goes as dialed
		}
		c, err := NewConn(tc, slack)
		if err != nil {
			nc.Close()
			return nil, err
		}
		return c, nil
	}
}

func (c *Conn) Read(p []byte) (int, error) {
	n, err := c.sock.Read(p)
	return n, c.opErr("read", err)
}

func (c *Conn) Write(p []byte) (int, error) {
	n, err := c.sock.Write(p)
	return n, c.opErr("write", err)
}

// opErr names the operation and the addresses as net.Conn's errors do;
// io.EOF, and an error the net.TCPConn named so already, stay themselves.
func (c *Conn) opErr(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok && oe.Op == op || err == nil || err == io.EOF {
		return err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

func (c *Conn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

func (c *Conn) SetReadDeadline(t time.Time) error {
	return c.set(&c.rd, t, c.TCPConn.SetReadDeadline)
}

func (c *Conn) SetWriteDeadline(t time.Time) error {
	return c.set(&c.wd, t, c.TCPConn.SetWriteDeadline)
}

// set gives the socket t plus the slack when the deadline it has would
// fire before t or more than the slack after it, so that a library that
// asks for now plus a timeout before each request re-arms the socket once
// a slack, not once a request.
func (c *Conn) set(have *time.Time, t time.Time, apply func(time.Time) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !stale(*have, t, c.slack) {
		return nil
	}
	d := t
	if time.Until(t) > 0 { // a past deadline ends a wait now, as asked
		d = t.Add(c.slack)
	}
	if err := apply(d); err != nil {
		return err
	}
	*have = d
	return nil
}

// stale says whether a socket whose deadline is have must be given a new
// one for a caller that asks for want.
func stale(have, want time.Time, slack time.Duration) bool {
	switch {
	case want.IsZero() || have.IsZero():
		return want.IsZero() != have.IsZero()
	case have.Before(want):
		return true
	default:
		return have.Sub(want) > slack
	}
}
