package tcp

import (
	"io"
	"net"
	"time"

	"github.com/kvbench/kvbench/rdmakv/rawsock"
)

// stream is a connection's socket. One goroutine reads at a time (the
// holder of rtok) and one writes (under wmu). A read deadline moved into
// the past ends a read under way: at once under the poller, within
// blockMaxWait plus blockSlack on a blocking socket.
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

// A dialed connection with transport.Config.Blocking waits on a blocking
// socket (rawsock.BlockConn) in waits of at most blockMaxWait, each ending
// up to blockSlack past its deadline: so a deadline moved into the past
// (an Await taking the stream back, Wake) ends a read within a few
// milliseconds, while a reply that comes sooner ends the wait with no
// change to the socket's timeout.
const (
	blockMaxWait = 2 * time.Millisecond
	blockSlack   = time.Millisecond
)

// pollStream is a socket under the runtime's poller, read and written with
// raw system calls (rawsock.Sock), and with writev through net.
type pollStream struct {
	*net.TCPConn
	sock *rawsock.Sock
}

func newPollStream(nc *net.TCPConn) (pollStream, error) {
	_ = nc.SetNoDelay(true)
	sock, err := rawsock.New(nc)
	if err != nil {
		return pollStream{}, err
	}
	return pollStream{TCPConn: nc, sock: sock}, nil
}

func (s pollStream) Read(p []byte) (int, error)  { return s.sock.Read(p) }
func (s pollStream) Write(p []byte) (int, error) { return s.sock.Write(p) }

func (s pollStream) Writev(bufs *net.Buffers) (int64, error) {
	s.sock.RaceWrote() // the reader reads these bytes with a rawsock.Sock
	return bufs.WriteTo(s.TCPConn)
}
