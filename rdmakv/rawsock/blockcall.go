//go:build linux

package rawsock

import (
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sysCall is one read or write of a buffer on a blocking descriptor, its
// callback bound once so that a call allocates nothing. The system call
// may wait in the kernel, so it goes through unix.Syscall, which hands
// the P to another thread meanwhile.
type sysCall struct {
	trap  uintptr
	p     []byte
	n     uintptr
	errno unix.Errno
	fn    func(fd uintptr)
}

func newSysCall(trap uintptr) *sysCall {
	s := &sysCall{trap: trap}
	s.fn = s.call
	return s
}

func (s *sysCall) call(fd uintptr) {
	for {
		s.n, _, s.errno = unix.Syscall(s.trap, fd, uintptr(unsafe.Pointer(unsafe.SliceData(s.p))), uintptr(len(s.p)))
		if s.errno != unix.EINTR {
			return
		}
	}
}

// do runs the call on p: the bytes it moved, its errno (EAGAIN when the
// socket's timeout ran out), or rc's error when the descriptor is closing.
func (s *sysCall) do(rc syscall.RawConn, p []byte) (int, unix.Errno, error) {
	s.p = p
	err := rc.Control(s.fn)
	n, errno := int(s.n), s.errno
	s.p, s.n, s.errno = nil, 0, 0
	if err != nil || errno != 0 {
		n = 0
	}
	return n, errno, err
}

// timeoutCall sets the socket's SO_RCVTIMEO or SO_SNDTIMEO, its callback
// bound once: a deadline within MaxWait gives every wait a new timeout.
type timeoutCall struct {
	opt int
	d   time.Duration
	err error
	fn  func(fd uintptr)
}

func newTimeoutCall() *timeoutCall {
	t := &timeoutCall{}
	t.fn = t.call
	return t
}

func (t *timeoutCall) call(fd uintptr) { t.err = setTimeout(int(fd), t.opt, t.d) }

// set gives the socket a timeout of d for opt (0: none).
func (t *timeoutCall) set(rc syscall.RawConn, opt int, d time.Duration) error {
	t.opt, t.d, t.err = opt, d, nil
	if err := rc.Control(t.fn); err != nil {
		return err
	}
	err := t.err
	t.err = nil
	return err
}

// setTimeout sets the socket's SO_RCVTIMEO or SO_SNDTIMEO (0: none).
func setTimeout(fd int, opt int, d time.Duration) error {
	tv := unix.NsecToTimeval(d.Nanoseconds())
	if d > 0 && tv.Sec == 0 && tv.Usec == 0 {
		tv.Usec = 1 // below the timeout's resolution, not none
	}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, opt, &tv); err != nil {
		return &os.SyscallError{Syscall: "setsockopt", Err: err}
	}
	return nil
}
