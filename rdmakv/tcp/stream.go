package tcp

import (
	"context"
	"io"
	"net"
	"time"

	"github.com/kvbench/kvbench/rdmakv/rawsock"
)

// stream is a connection's socket. One goroutine reads at a time (the
// holder of rtok) and one writes (under wmu). A read deadline moved into
// the past ends a read under way: at once under the poller, within
// blockMaxWait plus blockSlack on a blocking socket.
//
// There are two paths to the socket: on Linux, raw system calls under the
// runtime's poller (rdmakv/rawsock; stream_linux.go), and everywhere the
// standard net.Conn (netStream), which transport.Config.NetConn asks for
// on Linux and every connection takes elsewhere.
type stream interface {
	io.Reader
	io.Writer
	// Writev writes all of bufs (at most two) in one system call where it
	// can, and empties bufs.
	Writev(bufs *net.Buffers) (int64, error)
	SetReadDeadline(t time.Time) error
	SetWriteDeadline(t time.Time) error
	CloseWrite() error
	Close() error
	LocalAddr() net.Addr
	RemoteAddr() net.Addr
}

// peeker looks at what an accepted connection's peer has sent before the
// reader takes it, for the guard (spoken.go): on the raw path the
// socket's receive queue itself, on the net.Conn path what the reader
// read ahead into a buffer of its own (readAhead).
type peeker interface {
	// Peek copies the bytes at the head into p without taking them. It
	// never waits, and it may run beside the reader on any goroutine.
	Peek(p []byte) (rawsock.Peeked, error)
	// AwaitPeek peeks until done says what it saw will do, waiting for
	// more bytes between looks; the reader's, who holds the read side.
	// It ends early with the read deadline or Close as a Read does, and
	// with io.EOF once the peer has shut down with nothing left.
	AwaitPeek(p []byte, done func(rawsock.Peeked) bool) (rawsock.Peeked, error)
}

// netStream is a socket read and written through the standard net.Conn:
// the runtime's poller, and net.Buffers' writev.
type netStream struct {
	*net.TCPConn
}

func newNetStream(nc *net.TCPConn) netStream {
	_ = nc.SetNoDelay(true)
	return netStream{nc}
}

func (s netStream) Writev(bufs *net.Buffers) (int64, error) { return bufs.WriteTo(s.TCPConn) }

// dialNetStream dials a netStream.
func dialNetStream(ctx context.Context, addr string) (stream, error) {
	nc, err := dialTCP(ctx, addr)
	if err != nil {
		return nil, err
	}
	return newNetStream(nc), nil
}

// acceptNetStream is an accepted connection's netStream, with the
// read-ahead its guard peeks at.
func acceptNetStream(nc *net.TCPConn) (stream, peeker, error) {
	ra := &readAhead{nc: nc}
	return aheadStream{netStream: newNetStream(nc), ra: ra}, ra, nil
}

// dialTCP connects a socket under the poller.
func dialTCP(ctx context.Context, addr string) (*net.TCPConn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return nc.(*net.TCPConn), nil
}

// aheadStream is an accepted netStream whose reads take what its guard
// read ahead first.
type aheadStream struct {
	netStream
	ra *readAhead
}

func (s aheadStream) Read(p []byte) (int, error) { return s.ra.Read(p) }
