//go:build linux

package rawsock

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Sock reads and writes a connection's socket with raw system calls
// inside syscall.RawConn's callbacks. The runtime's poller still parks a
// goroutine while the socket is not ready, and deadlines and Close hold
// as for net.Conn; but a read or write that need not wait does not enter
// the scheduler's system-call state. Entering it wakes the runtime's
// monitor thread (sysmon) whenever the process was idle, which at one
// request in flight is a wake-up of another thread per request: on two
// cores shared with the peer, most of what a Go server costs beyond an
// event loop's read and write. A non-blocking socket's read and write
// never block, so they need not enter it.
//
// One goroutine reads at a time and one writes at a time (the stream's
// caller sees to it); a read and a write may run together.
type Sock struct {
	rc   syscall.RawConn
	race raceSync
	// The calls' arguments and results, and the callbacks bound to them
	// once, so that a call allocates nothing.
	rp, wp     []byte
	rn, wn     int
	rerr, werr error
	rfn, wfn   func(fd uintptr) bool
}

// New is a Sock over nc's socket; nc keeps its deadlines and its Close.
func New(nc *net.TCPConn) (*Sock, error) {
	rc, err := nc.SyscallConn()
	if err != nil {
		return nil, err
	}
	s := &Sock{rc: rc, race: raceSyncOf(nc.LocalAddr(), nc.RemoteAddr())}
	s.rfn, s.wfn = s.read, s.write
	return s, nil
}

// Read is one read of at most len(p) bytes, io.EOF at the end.
func (s *Sock) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.rp, s.rn, s.rerr = p, 0, nil
	err := s.rc.Read(s.rfn)
	s.race.read()
	n, rerr := s.rn, s.rerr
	s.rp, s.rerr = nil, nil
	switch {
	case err != nil:
		return 0, err
	case rerr != nil:
		return 0, rerr
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// read reports false to wait until the socket is readable.
func (s *Sock) read(fd uintptr) bool {
	for {
		n, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(s.rp))), uintptr(len(s.rp)))
		switch e {
		case 0:
			s.rn = int(n)
			return true
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		}
		s.rerr = os.NewSyscallError("read", e)
		return true
	}
}

// RaceWrote tells the race detector that the caller wrote, around the
// Sock (net.Conn's writev), bytes the peer reads.
func (s *Sock) RaceWrote() { s.race.wrote() }

// Write writes all of p, waiting for room as needed.
func (s *Sock) Write(p []byte) (int, error) {
	s.wp, s.wn, s.werr = p, 0, nil
	s.race.wrote()
	err := s.rc.Write(s.wfn)
	n, werr := s.wn, s.werr
	s.wp, s.werr = nil, nil
	if err == nil {
		err = werr
	}
	return n, err
}

// write reports false to wait until the socket has room.
func (s *Sock) write(fd uintptr) bool {
	for s.wn < len(s.wp) {
		rest := s.wp[s.wn:]
		n, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(rest))), uintptr(len(rest)))
		switch e {
		case 0:
			s.wn += int(n)
			continue
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		}
		s.werr = os.NewSyscallError("write", e)
		return true
	}
	return true
}
