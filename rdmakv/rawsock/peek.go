//go:build linux

package rawsock

import (
	"io"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	msgPeekNow = unix.MSG_PEEK | unix.MSG_DONTWAIT
	fionread   = unix.SIOCINQ // FIONREAD, for a socket
)

// Peek copies the bytes at the head of the socket's receive queue into p
// without taking them. It never waits, and it may run beside a Read on
// another goroutine: what it sees is then the queue before or after that
// Read took its bytes.
func (s *Sock) Peek(p []byte) (Peeked, error) {
	var pk Peeked
	var errno unix.Errno
	err := s.rc.Control(func(fd uintptr) { pk, errno = peek(fd, p) })
	if err == nil && errno != 0 && errno != unix.EAGAIN { // EAGAIN: nothing queued
		err = os.NewSyscallError("recvfrom", errno)
	}
	return pk, err
}

// AwaitPeek peeks as Peek does until done says what it saw will do,
// waiting between looks for more bytes to arrive. It holds the socket's
// read side, and ends early with the read deadline or Close as a Read
// does. Nothing is taken, so the next Read sees the same bytes.
func (s *Sock) AwaitPeek(p []byte, done func(Peeked) bool) (Peeked, error) {
	var pk Peeked
	var errno unix.Errno
	err := s.rc.Read(func(fd uintptr) bool {
		pk, errno = peek(fd, p)
		switch errno {
		case 0:
			return done(pk)
		case unix.EAGAIN:
			return false // nothing queued yet
		}
		return true
	})
	s.race.read()
	if err == nil && errno != 0 {
		err = os.NewSyscallError("recvfrom", errno)
	}
	if err == nil && pk.N == 0 && pk.Hup {
		err = io.EOF
	}
	return pk, err
}

// peek is one look: MSG_PEEK of p, then FIONREAD and a poll for POLLRDHUP.
// EAGAIN when the queue is empty and the peer still open.
func peek(fd uintptr, p []byte) (Peeked, unix.Errno) {
	var pk Peeked
	for {
		n, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)), msgPeekNow, 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return pk, e
		}
		pk.N = int(n)
		break
	}
	var q int32
	if _, _, e := unix.RawSyscall(unix.SYS_IOCTL, fd, fionread, uintptr(unsafe.Pointer(&q))); e != 0 {
		return pk, e
	}
	pk.Queued = int(q)
	pfd := unix.PollFd{Fd: int32(fd), Events: unix.POLLRDHUP}
	var ts unix.Timespec // zero: do not wait
	if _, _, e := unix.RawSyscall6(unix.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0); e != 0 && e != unix.EINTR {
		return pk, e
	}
	pk.Hup = pfd.Revents&unix.POLLRDHUP != 0 || (pk.N == 0 && len(p) > 0)
	return pk, 0
}
