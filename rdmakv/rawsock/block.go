//go:build linux

package rawsock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BlockConn is a TCP net.Conn over a blocking socket that the runtime's
// poller does not watch: a Read that finds no data waits in the kernel, on
// its own thread, and the reply wakes that thread and no other, as in a
// synchronous C client. Through the poller the same wait costs a read that
// finds nothing, two epoll_waits and a pass through the scheduler; a wait
// in ppoll on a socket the poller watches would also wake, with each reply,
// the thread the runtime keeps asleep in epoll_wait while a timer is
// pending. A BlockConn suits a process with fewer
// connections than Ps, so that a P stays free while their threads wait;
// with as many, the runtime hands the Ps of waiting threads to others and
// back.
//
// Deadlines are the socket's receive and send timeouts. A Read or Write
// waits until its deadline, or up to the slack after it (plus the
// kernel's rounding of a timeout up to its timer tick), never less. A
// deadline moved earlier ends a wait already begun only when the socket's
// timeout runs out; a Close ends it at once.
type BlockConn struct {
	f       *os.File
	la, ra  net.Addr
	slack   time.Duration
	maxWait time.Duration
	rc      syscall.RawConn
	race    raceSync
	// The system calls, bound once so that a call allocates nothing:
	// os.File's Read and Write would wrap the EAGAIN of each wait that
	// outlasts the socket's timeout in a new error. One reader and one
	// writer call them at a time.
	rdc, wrc *sysCall
	// Writev's call, its arguments and results.
	iov   [2]unix.Iovec
	niov  int
	wvn   uintptr
	wverr unix.Errno
	wvfn  func(fd uintptr)

	mu     sync.Mutex
	toc    *timeoutCall  // arm's, under mu
	rd, wd time.Time     // the deadlines asked for
	rt, wt time.Duration // the socket's timeouts (0: none)
	closed bool
}

// dialConn is DialContext's: a BlockConn.
func (d BlockDialer) dialConn(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.Dial(ctx, network, addr)
	if err != nil {
		return nil, err // a nil net.Conn, not a nil *BlockConn in one
	}
	return c, nil
}

// Dial connects to addr with a net.Dialer (its resolution, its tries of
// each address, ctx and Timeout), then takes the socket from under the
// poller: a duplicate of its descriptor, made blocking, becomes the
// BlockConn's, and the net.Conn closes.
func (d BlockDialer) Dial(ctx context.Context, network, addr string) (*BlockConn, error) {
	if err := checkTCP(network); err != nil {
		return nil, err
	}
	nd := net.Dialer{Timeout: d.Timeout, KeepAlive: -1}
	nc, err := nd.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	c, err := takeSocket(nc.(*net.TCPConn))
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Source: nc.LocalAddr(), Addr: nc.RemoteAddr(), Err: err}
	}
	c.slack, c.maxWait = d.Slack, d.MaxWait
	return c, nil
}

// takeSocket makes a BlockConn of a blocking duplicate of tc's socket. The
// duplicate shares the socket's flags, so tc must be closed unused after.
func takeSocket(tc *net.TCPConn) (*BlockConn, error) {
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd, derr := -1, error(nil)
	if err := rc.Control(func(s uintptr) {
		if fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0); derr == nil {
			derr = unix.SetNonblock(fd, false)
		}
	}); err != nil {
		derr = err
	}
	if derr != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		return nil, os.NewSyscallError("fcntl", derr)
	}
	c := &BlockConn{la: tc.LocalAddr(), ra: tc.RemoteAddr(), race: raceSyncOf(tc.LocalAddr(), tc.RemoteAddr())}
	// A blocking descriptor makes a File the poller leaves alone.
	c.f = os.NewFile(uintptr(fd), "tcp:"+c.ra.String())
	if c.rc, err = c.f.SyscallConn(); err != nil {
		c.f.Close()
		return nil, err
	}
	c.rdc, c.wrc = newSysCall(unix.SYS_READ), newSysCall(unix.SYS_WRITE)
	c.toc, c.wvfn = newTimeoutCall(), c.writevFd
	return c, nil
}

func (c *BlockConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if err := c.arm(&c.rd, &c.rt, unix.SO_RCVTIMEO); err != nil {
			return 0, c.opErr("read", err)
		}
		n, errno, err := c.rdc.do(c.rc, p)
		c.race.read()
		switch {
		case err != nil:
			return 0, c.opErr("read", err)
		case errno == unix.EAGAIN && !c.isClosed():
			continue // the timeout ran out: the deadline has passed unless it moved
		case errno != 0:
			return 0, c.opErr("read", os.NewSyscallError("read", errno))
		case n > 0:
			return n, nil
		case c.isClosed(): // Close shut the socket down
			return 0, c.opErr("read", net.ErrClosed)
		}
		return 0, io.EOF
	}
}

// Write returns as soon as all of p is written: a Close that follows the
// last byte out (the peer answered, hung up, and the reader closed the
// connection) does not turn a write that happened into a failure.
func (c *BlockConn) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	done := 0
	for {
		if err := c.arm(&c.wd, &c.wt, unix.SO_SNDTIMEO); err != nil {
			return done, c.opErr("write", err)
		}
		c.race.wrote()
		n, errno, err := c.wrc.do(c.rc, p[done:])
		done += n
		switch {
		case err != nil:
			return done, c.opErr("write", err)
		case errno != 0 && (errno != unix.EAGAIN || c.isClosed()):
			return done, c.opErr("write", os.NewSyscallError("write", errno))
		case done == len(p):
			return done, nil
		}
		// Written in part, or the timeout ran out: go on until the deadline.
	}
}

// arm gives the socket a timeout that ends a wait begun now at the
// deadline or up to the slack after it; os.ErrDeadlineExceeded once the
// deadline has passed. Requests that each ask for now plus the same
// timeout leave the socket's timeout as it is.
func (c *BlockConn) arm(dl *time.Time, have *time.Duration, opt int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	want := time.Duration(0)
	if !dl.IsZero() {
		want = time.Until(*dl)
		if want <= 0 {
			return os.ErrDeadlineExceeded
		}
	}
	if c.maxWait > 0 && (want == 0 || want > c.maxWait) {
		want = c.maxWait
	}
	if !staleTimeout(*have, want, c.slack) {
		return nil
	}
	set := want
	if want > 0 {
		set = want + c.slack/2
	}
	if err := c.toc.set(c.rc, opt, set); err != nil {
		return err
	}
	*have = set
	return nil
}

// staleTimeout says whether a socket whose timeout is have must be given
// a new one for a wait that may last want (0: no limit for either): the
// rule stale applies to deadlines, with the timeouts as deadlines from one
// instant.
func staleTimeout(have, want, slack time.Duration) bool {
	return stale(sinceEpoch(have), sinceEpoch(want), slack)
}

// sinceEpoch is d after a fixed instant, or the zero Time for 0.
func sinceEpoch(d time.Duration) time.Time {
	if d == 0 {
		return time.Time{}
	}
	return time.Unix(0, 0).Add(d)
}

// control runs fn on the socket's descriptor; it allocates, so it is for
// what does not happen per request.
func (c *BlockConn) control(fn func(fd int)) error {
	return c.rc.Control(func(fd uintptr) { fn(int(fd)) })
}

func (c *BlockConn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// opErr is an error as net.Conn's are: the operation and the addresses
// around the cause, net.ErrClosed once closed, a timeout as one.
func (c *BlockConn) opErr(op string, err error) error {
	switch {
	case c.isClosed() || errors.Is(err, os.ErrClosed):
		err = net.ErrClosed
	case errors.Is(err, unix.EAGAIN):
		err = os.ErrDeadlineExceeded
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.la, Addr: c.ra, Err: err}
}

// Close shuts the socket down first, which ends a Read or Write waiting in
// the kernel; the descriptor closes once they return. Closing twice is
// net.ErrClosed, as for net.Conn.
func (c *BlockConn) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return &net.OpError{Op: "close", Net: "tcp", Source: c.la, Addr: c.ra, Err: net.ErrClosed}
	}
	c.closed = true
	c.mu.Unlock()
	_ = c.control(func(fd int) { _ = unix.Shutdown(fd, unix.SHUT_RDWR) })
	return c.f.Close()
}

// Writev writes all of bufs, at most two, with writev, and empties bufs
// as net.Buffers.WriteTo does.
func (c *BlockConn) Writev(bufs *net.Buffers) (int64, error) {
	if len(*bufs) > len(c.iov) {
		return 0, c.opErr("writev", fmt.Errorf("rawsock: Writev of %d buffers, at most %d", len(*bufs), len(c.iov)))
	}
	var total int64
	for {
		for len(*bufs) > 0 && len((*bufs)[0]) == 0 {
			*bufs = (*bufs)[1:]
		}
		if len(*bufs) == 0 {
			return total, nil
		}
		if err := c.arm(&c.wd, &c.wt, unix.SO_SNDTIMEO); err != nil {
			return total, c.opErr("writev", err)
		}
		c.race.wrote()
		n, errno, err := c.writev(*bufs)
		total += int64(n)
		consume(bufs, n)
		switch {
		case err != nil:
			return total, c.opErr("writev", err)
		case errno != 0 && (errno != unix.EAGAIN || c.isClosed()):
			return total, c.opErr("writev", os.NewSyscallError("writev", errno))
		}
	}
}

// writev is one writev of bufs: the bytes written, its errno (EAGAIN when
// the socket's timeout ran out), or Control's error.
func (c *BlockConn) writev(bufs net.Buffers) (int, unix.Errno, error) {
	for i, b := range bufs {
		c.iov[i] = unix.Iovec{Base: unsafe.SliceData(b)}
		c.iov[i].SetLen(len(b))
	}
	c.niov = len(bufs)
	err := c.rc.Control(c.wvfn)
	n, errno := int(c.wvn), c.wverr
	c.iov, c.wvn, c.wverr = [2]unix.Iovec{}, 0, 0
	if err != nil || errno != 0 {
		n = 0
	}
	return n, errno, err
}

// writevFd is one writev of c.iov, which may wait for room in the kernel.
func (c *BlockConn) writevFd(fd uintptr) {
	for {
		c.wvn, _, c.wverr = unix.Syscall(unix.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&c.iov[0])), uintptr(c.niov))
		if c.wverr != unix.EINTR {
			return
		}
	}
}

// consume drops the first n bytes of v, as net.Buffers' own writes do.
func consume(v *net.Buffers, n int) {
	for len(*v) > 0 {
		k := len((*v)[0])
		if k > n {
			(*v)[0] = (*v)[0][n:]
			return
		}
		n -= k
		(*v)[0] = nil
		*v = (*v)[1:]
	}
}

// CloseWrite shuts down the sending side.
func (c *BlockConn) CloseWrite() error {
	var err error
	if cerr := c.control(func(fd int) { err = unix.Shutdown(fd, unix.SHUT_WR) }); cerr != nil {
		return c.opErr("close", cerr)
	}
	if err != nil {
		return c.opErr("close", os.NewSyscallError("shutdown", err))
	}
	return nil
}

// SyscallConn is the socket's, for options (syscall.Conn).
func (c *BlockConn) SyscallConn() (syscall.RawConn, error) { return c.rc, nil }

func (c *BlockConn) LocalAddr() net.Addr  { return c.la }
func (c *BlockConn) RemoteAddr() net.Addr { return c.ra }

func (c *BlockConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rd, c.wd = t, t
	return nil
}

func (c *BlockConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rd = t
	return nil
}

func (c *BlockConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wd = t
	return nil
}
