//go:build linux

package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// blockingConn is a TCP socket in blocking mode, read and written with
// plain system calls, as a C client's is. A request and its reply then
// cost a write and a read that sleeps in the kernel until the reply is
// there; a socket of Go's net package instead reads EAGAIN, parks its
// goroutine and waits in the runtime's epoll, several microseconds more
// per request at one connection. The runtime counts the blocked goroutine
// as in a system call and lends its P to others after a while, so many
// such sockets cost a thread each, as they do a C client.
//
// Deadlines are the socket's SO_RCVTIMEO and SO_SNDTIMEO, set once at the
// dial: each read and each write times out on its own rather than the
// whole request, and SetDeadline does nothing (the client libraries set
// one per request, always the same timeout). A Read or Write must not
// run concurrently with Close.
type blockingConn struct {
	fd            int
	local, remote net.Addr
	once          sync.Once
}

// dialBlocking dials addr with d and turns the socket into a
// blockingConn whose reads and writes time out after timeout.
func dialBlocking(ctx context.Context, d *net.Dialer, addr string, timeout time.Duration) (net.Conn, error) {
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil, fmt.Errorf("dial %s: not a TCP connection", addr)
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil, err
	}
	// A duplicate of the descriptor, so that closing the net.Conn (and
	// taking it off the runtime's epoll) leaves the socket open.
	fd := -1
	if cerr := raw.Control(func(s uintptr) {
		fd, err = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0)
	}); cerr != nil {
		return nil, cerr
	}
	if err != nil {
		return nil, os.NewSyscallError("dup", err)
	}
	tv := unix.NsecToTimeval(timeout.Nanoseconds())
	for _, opt := range []int{unix.SO_RCVTIMEO, unix.SO_SNDTIMEO} {
		if err == nil {
			err = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, opt, &tv)
		}
	}
	if err == nil {
		err = unix.SetNonblock(fd, false)
	}
	if err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("setsockopt", err)
	}
	return &blockingConn{fd: fd, local: c.LocalAddr(), remote: c.RemoteAddr()}, nil
}

func (c *blockingConn) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(c.fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, c.err("read", err)
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		n, err := unix.Write(c.fd, p[done:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return done, c.err("write", err)
		}
		done += n
	}
	return done, nil
}

// err is a net.OpError as the net package's; a timed-out call's is
// os.ErrDeadlineExceeded, which is a timeout.
func (c *blockingConn) err(op string, err error) error {
	if errors.Is(err, unix.EAGAIN) {
		err = os.ErrDeadlineExceeded
	} else {
		err = os.NewSyscallError(op, err)
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.local, Addr: c.remote, Err: err}
}

// Close shuts the socket down before closing it, so that the server sees
// the connection end even if a duplicate of the descriptor lingers.
func (c *blockingConn) Close() error {
	err := net.ErrClosed
	c.once.Do(func() {
		_ = unix.Shutdown(c.fd, unix.SHUT_RDWR)
		err = unix.Close(c.fd)
	})
	return err
}

func (c *blockingConn) LocalAddr() net.Addr              { return c.local }
func (c *blockingConn) RemoteAddr() net.Addr             { return c.remote }
func (c *blockingConn) SetDeadline(time.Time) error      { return nil }
func (c *blockingConn) SetReadDeadline(time.Time) error  { return nil }
func (c *blockingConn) SetWriteDeadline(time.Time) error { return nil }
