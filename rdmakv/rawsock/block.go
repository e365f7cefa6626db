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
	// The system calls, bound once so that a call allocates nothing:
	// os.File's Read and Write would wrap the EAGAIN of each wait that
	// outlasts the socket's timeout in a new error. One reader and one
	// writer call them at a time.
	rdc, wrc *sysCall
	// Writev's call, its arguments and results.
	iov   [2]syscall.Iovec
	niov  int
	wvn   uintptr
	wverr syscall.Errno
	wvfn  func(fd uintptr)

	mu     sync.Mutex
	toc    *timeoutCall  // arm's, under mu
	rd, wd time.Time     // the deadlines asked for
	rt, wt time.Duration // the socket's timeouts (0: none)
	closed bool
}

// BlockDialer dials BlockConns.
type BlockDialer struct {
	// Timeout bounds a connect, as ctx's deadline does (0: ctx alone).
	Timeout time.Duration
	// Slack is how long after its deadline a wait may end: a deadline
	// reaches the socket only when it would end a wait early or more than
	// the slack late.
	Slack time.Duration
	// MaxWait, if not 0, bounds one wait in the kernel: a wait longer than
	// that wakes to look at its deadline again, so that a deadline moved
	// earlier takes effect within MaxWait plus the slack.
	MaxWait time.Duration
}

// DialContext has net.Dialer.DialContext's signature, for client
// libraries that take a dial function.
func (d BlockDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.Dial(ctx, network, addr)
	if err != nil {
		return nil, err // a nil net.Conn, not a nil *BlockConn in one
	}
	return c, nil
}

// Dial connects to addr over TCP, trying each address it resolves to.
func (d BlockDialer) Dial(ctx context.Context, network, addr string) (*BlockConn, error) {
	if d.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d.Timeout)
		defer cancel()
	}
	addrs, err := resolve(ctx, network, addr)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	var first error
	for _, ra := range addrs {
		c, err := dialBlocking(ctx, ra)
		if err == nil {
			c.slack, c.maxWait = d.Slack, d.MaxWait
			return c, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, first
}

func resolve(ctx context.Context, network, addr string) ([]*net.TCPAddr, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, fmt.Errorf("rawsock: network %q is not TCP", network)
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	pn, err := net.DefaultResolver.LookupPort(ctx, network, port)
	if err != nil {
		return nil, err
	}
	ips, err := net.DefaultResolver.LookupNetIP(ctx, map[string]string{"tcp": "ip", "tcp4": "ip4", "tcp6": "ip6"}[network], host)
	if err != nil {
		return nil, err
	}
	out := make([]*net.TCPAddr, len(ips))
	for i, ip := range ips {
		out[i] = &net.TCPAddr{IP: ip.AsSlice(), Port: pn, Zone: ip.Zone()}
	}
	return out, nil
}

// dialBlocking connects one socket to ra, non-blocking so that ctx can
// end the connect, and then makes it blocking.
func dialBlocking(ctx context.Context, ra *net.TCPAddr) (*BlockConn, error) {
	opErr := func(err error) error { return &net.OpError{Op: "dial", Net: "tcp", Addr: ra, Err: err} }
	if err := ctx.Err(); err != nil {
		return nil, opErr(err)
	}
	family, sa := syscall.AF_INET6, sockaddr(ra)
	if _, ok := sa.(*syscall.SockaddrInet4); ok {
		family = syscall.AF_INET
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, syscall.IPPROTO_TCP)
	if err != nil {
		return nil, opErr(os.NewSyscallError("socket", err))
	}
	if err := connect(ctx, fd, sa); err != nil {
		syscall.Close(fd)
		return nil, opErr(err)
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, opErr(os.NewSyscallError("fcntl", err))
	}
	if err := syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1); err != nil {
		syscall.Close(fd)
		return nil, opErr(os.NewSyscallError("setsockopt", err))
	}
	c := &BlockConn{ra: ra}
	if lsa, err := syscall.Getsockname(fd); err == nil {
		c.la = tcpAddr(lsa)
	}
	// A blocking descriptor makes a File the poller leaves alone.
	c.f = os.NewFile(uintptr(fd), "tcp:"+ra.String())
	if c.rc, err = c.f.SyscallConn(); err != nil {
		c.f.Close()
		return nil, opErr(err)
	}
	c.rdc, c.wrc = newSysCall(syscall.SYS_READ), newSysCall(syscall.SYS_WRITE)
	c.toc, c.wvfn = newTimeoutCall(), c.writevFd
	return c, nil
}

// connectPoll is how long a connect waits in ppoll before it looks at its
// context again.
const connectPoll = 10 * time.Millisecond

// connect connects the non-blocking fd, waiting in the kernel for the
// handshake in slices of connectPoll until ctx ends.
func connect(ctx context.Context, fd int, sa syscall.Sockaddr) error {
	err := syscall.Connect(fd, sa)
	for err == syscall.EINTR {
		err = syscall.Connect(fd, sa)
	}
	switch {
	case err == nil:
		return nil
	case err != syscall.EINPROGRESS && err != syscall.EALREADY:
		return os.NewSyscallError("connect", err)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		wait := connectPoll
		if dl, ok := ctx.Deadline(); ok {
			if wait = min(wait, time.Until(dl)); wait <= 0 {
				return context.DeadlineExceeded
			}
		}
		pfd := pollFd{fd: int32(fd), events: pollOut}
		ts := syscall.NsecToTimespec(wait.Nanoseconds())
		n, _, e := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		switch {
		case e == syscall.EINTR || (e == 0 && n == 0):
			continue
		case e != 0:
			return os.NewSyscallError("ppoll", e)
		}
		v, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ERROR)
		switch {
		case err != nil:
			return os.NewSyscallError("getsockopt", err)
		case v != 0:
			return os.NewSyscallError("connect", syscall.Errno(v))
		}
		return nil
	}
}

// pollFd is struct pollfd, for ppoll.
type pollFd struct {
	fd              int32
	events, revents int16
}

const pollOut = 0x4 // POLLOUT

func sockaddr(a *net.TCPAddr) syscall.Sockaddr {
	if ip4 := a.IP.To4(); ip4 != nil {
		sa := &syscall.SockaddrInet4{Port: a.Port}
		copy(sa.Addr[:], ip4)
		return sa
	}
	sa := &syscall.SockaddrInet6{Port: a.Port}
	copy(sa.Addr[:], a.IP.To16())
	if a.Zone != "" {
		if ifi, err := net.InterfaceByName(a.Zone); err == nil {
			sa.ZoneId = uint32(ifi.Index)
		}
	}
	return sa
}

func tcpAddr(sa syscall.Sockaddr) net.Addr {
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		return &net.TCPAddr{IP: append(net.IP(nil), sa.Addr[:]...), Port: sa.Port}
	case *syscall.SockaddrInet6:
		return &net.TCPAddr{IP: append(net.IP(nil), sa.Addr[:]...), Port: sa.Port}
	}
	return nil
}

func (c *BlockConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		if err := c.arm(&c.rd, &c.rt, syscall.SO_RCVTIMEO); err != nil {
			return 0, c.opErr("read", err)
		}
		n, errno, err := c.rdc.do(c.rc, p)
		raceRead()
		switch {
		case err != nil:
			return 0, c.opErr("read", err)
		case errno == syscall.EAGAIN && !c.isClosed():
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
		if err := c.arm(&c.wd, &c.wt, syscall.SO_SNDTIMEO); err != nil {
			return done, c.opErr("write", err)
		}
		RaceWrote()
		n, errno, err := c.wrc.do(c.rc, p[done:])
		done += n
		switch {
		case err != nil:
			return done, c.opErr("write", err)
		case errno != 0 && (errno != syscall.EAGAIN || c.isClosed()):
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
	case errors.Is(err, syscall.EAGAIN):
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
	_ = c.control(func(fd int) { _ = syscall.Shutdown(fd, syscall.SHUT_RDWR) })
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
		if err := c.arm(&c.wd, &c.wt, syscall.SO_SNDTIMEO); err != nil {
			return total, c.opErr("writev", err)
		}
		RaceWrote()
		n, errno, err := c.writev(*bufs)
		total += int64(n)
		consume(bufs, n)
		switch {
		case err != nil:
			return total, c.opErr("writev", err)
		case errno != 0 && (errno != syscall.EAGAIN || c.isClosed()):
			return total, c.opErr("writev", os.NewSyscallError("writev", errno))
		}
	}
}

// writev is one writev of bufs: the bytes written, its errno (EAGAIN when
// the socket's timeout ran out), or Control's error.
func (c *BlockConn) writev(bufs net.Buffers) (int, syscall.Errno, error) {
	for i, b := range bufs {
		c.iov[i] = syscall.Iovec{Base: unsafe.SliceData(b)}
		c.iov[i].SetLen(len(b))
	}
	c.niov = len(bufs)
	err := c.rc.Control(c.wvfn)
	n, errno := int(c.wvn), c.wverr
	c.iov, c.wvn, c.wverr = [2]syscall.Iovec{}, 0, 0
	if err != nil || errno != 0 {
		n = 0
	}
	return n, errno, err
}

// writevFd is one writev of c.iov, which may wait for room in the kernel.
func (c *BlockConn) writevFd(fd uintptr) {
	for {
		c.wvn, _, c.wverr = syscall.Syscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&c.iov[0])), uintptr(c.niov))
		if c.wverr != syscall.EINTR {
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
	if cerr := c.control(func(fd int) { err = syscall.Shutdown(fd, syscall.SHUT_WR) }); cerr != nil {
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
