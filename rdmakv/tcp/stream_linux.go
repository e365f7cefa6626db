//go:build linux

package tcp

import (
	"context"
	"net"
	"time"

	"github.com/kvbench/kvbench/rdmakv/rawsock"
	"github.com/kvbench/kvbench/rdmakv/transport"
)

// On Linux a connection's socket is read and written with raw system
// calls under the poller (pollStream), or for a dialed connection with
// transport.Config.Blocking on a blocking socket (rawsock.BlockConn),
// unless transport.Config.NetConn asks for net.Conn (netStream).

// rawSockets says whether connections may take the raw path.
const rawSockets = true

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

// acceptStream is an accepted connection's stream, and what its guard
// peeks at: the socket's receive queue on the raw path.
func acceptStream(nc *net.TCPConn, cfg transport.Config) (stream, peeker, error) {
	if cfg.NetConn {
		return acceptNetStream(nc)
	}
	s, err := newPollStream(nc)
	if err != nil {
		return nil, nil, err
	}
	return s, s.sock, nil
}

// dialStream connects a socket under the poller, or a blocking one.
func dialStream(ctx context.Context, addr string, cfg transport.Config) (stream, error) {
	switch {
	case cfg.NetConn:
		return dialNetStream(ctx, addr)
	case cfg.Blocking:
		d := rawsock.BlockDialer{Slack: blockSlack, MaxWait: blockMaxWait}
		bc, err := d.Dial(ctx, "tcp", addr)
		if err != nil {
			return nil, err // not a nil *BlockConn in a non-nil stream
		}
		return bc, nil
	}
	nc, err := dialTCP(ctx, addr)
	if err != nil {
		return nil, err
	}
	s, err := newPollStream(nc)
	if err != nil {
		_ = nc.Close()
		return nil, err
	}
	return s, nil
}

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
