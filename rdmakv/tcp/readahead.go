package tcp

import (
	"io"
	"net"
	"sync"

	"github.com/kvbench/kvbench/rdmakv/rawsock"
)

// readAhead stands in, on the net.Conn path, for a peek at the socket's
// receive queue, which net.Conn has none of: while an accepted connection
// is guarded, the reader reads the peer's bytes into a buffer until the
// frame at its head is whole (AwaitPeek), and Peek looks at what the
// buffer holds from any goroutine. Reads take from the buffer before the
// socket. A frame counts as arrived once the reader has read it, as soon
// as the poller wakes it, rather than once it is in the socket: before
// the reader starts, and while the runtime has yet to run it, Spoken does
// not see a frame the raw path would.
//
// A peer that says nothing costs no buffer: the first read is of a frame
// header, into head, and only a frame longer than that gets one, of
// guardMax, which goes once it is read.
type readAhead struct {
	nc *net.TCPConn
	// The reader alone changes these, under mu, which Peek takes; the
	// reader reads them without it. Bytes read into buf[w:] are the
	// reader's until w covers them. buf is nil while empty.
	mu   sync.Mutex
	buf  []byte
	r, w int
	hup  bool  // the peer shut down: io.EOF follows what buf holds
	err  error // a failed read's error, for the Read after buf drains
	head [headerSize]byte
}

func (a *readAhead) Read(p []byte) (int, error) {
	if a.r == a.w {
		if err := a.err; err != nil {
			a.err = nil
			return 0, err
		}
		return a.nc.Read(p)
	}
	a.mu.Lock()
	n := copy(p, a.buf[a.r:a.w])
	if a.r += n; a.r == a.w {
		a.buf, a.r, a.w = nil, 0, 0
	}
	a.mu.Unlock()
	return n, nil
}

func (a *readAhead) Peek(p []byte) (rawsock.Peeked, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.look(p), nil
}

// look is Peek's; the caller holds mu.
func (a *readAhead) look(p []byte) rawsock.Peeked {
	if a.buf == nil {
		return rawsock.Peeked{Hup: a.hup}
	}
	return rawsock.Peeked{N: copy(p, a.buf[a.r:a.w]), Queued: a.w - a.r, Hup: a.hup}
}

// AwaitPeek reads into the buffer until done says what it holds will do.
// With the buffer full, it returns what it saw: more cannot come before
// the reader takes some.
func (a *readAhead) AwaitPeek(p []byte, done func(rawsock.Peeked) bool) (rawsock.Peeked, error) {
	for {
		a.mu.Lock()
		pk := a.look(p)
		a.mu.Unlock()
		switch {
		case done(pk):
			return pk, nil
		case a.err != nil:
			return pk, a.err
		case a.hup && pk.N == 0:
			return pk, io.EOF
		case a.hup:
			return pk, nil
		}
		if !a.room() {
			return pk, nil
		}
		n, err := a.nc.Read(a.buf[a.w:])
		a.mu.Lock()
		if a.w += n; a.w == 0 {
			a.buf = nil
		}
		switch {
		case err == io.EOF:
			a.hup = true
		case err != nil:
			a.err = err
		}
		a.mu.Unlock()
	}
}

// room makes room at the buffer's end: head for a header, then guardMax,
// with what it holds moved to its start; false if it is full.
func (a *readAhead) room() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.buf == nil:
		a.buf = a.head[:]
	case a.w < len(a.buf):
	case len(a.buf) < guardMax:
		b := make([]byte, guardMax)
		a.buf, a.w, a.r = b, copy(b, a.buf[a.r:a.w]), 0
	case a.r > 0:
		a.w, a.r = copy(a.buf, a.buf[a.r:a.w]), 0
	}
	return a.w < len(a.buf)
}
