package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/kvbench/kvbench/internal/units"
	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/rawsock"
)

// What the drivers share: the sockets their client libraries dial, the
// errors the harness counts, a password file, and how they refuse what
// the server cannot store.

// Err turns a client library's transport errors into the sentinels the
// harness counts: deadlines as timeouts, a connection the server closed
// as closed. The library's own errors stay as they are.
func Err(err error) error {
	var ne net.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return ErrTimeout
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		return ErrClosed
	}
	return err
}

// NetDialer is a client library's dialer: the timeout, no keep-alive.
func NetDialer(timeout time.Duration) net.Dialer {
	return net.Dialer{Timeout: timeout, KeepAlive: -1}
}

// DialFunc is a client library's dial hook.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// Blocking says whether the measured connections wait on blocking sockets
// (BlockingSockets).
func (c Config) Blocking() bool { return BlockingSockets(c.Connections) }

// BlockingSockets says whether a process with this many measured
// connections gives them blocking sockets (rawsock.BlockConn), rdmakv's
// over TCP and the baselines' alike: a thread per connection waits in the
// kernel, as a synchronous C client waits, while there are fewer
// connections than Ps, so that one stays free for the harness. With as
// many (one connection on one P, as in a pinned process), the runtime's
// monitor takes the P from a waiting thread and hands it back, and the
// poller does better; past that the poller shares the Ps among them.
func BlockingSockets(connections int) bool {
	return connections < runtime.GOMAXPROCS(0)
}

// BlockDial dials blocking sockets. The deadline a client sets before
// each request ends a wait up to a quarter of the timeout late rather than
// set the socket's timeout each time.
func BlockDial(timeout time.Duration) DialFunc {
	return rawsock.BlockDialer{Timeout: timeout, Slack: timeout / 4}.DialContext
}

// RawDial dials sockets whose reads and writes are raw system calls under
// the poller (rdmakv/rawsock), as rdmakv's TCP transport's are, with
// the same slack on deadlines, which here re-arm the runtime's timers.
func RawDial(timeout time.Duration) DialFunc {
	d := NetDialer(timeout)
	return rawsock.Dial(&d, timeout/4)
}

// Seconds parses a server's CPU seconds ("12.345678"); 0 if it cannot.
func Seconds(s string) time.Duration {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

// RefuseSizes is one error naming every value size of cells that bad
// refuses, with why (format and args).
func RefuseSizes(cells Cells, bad func(size int) bool, format string, args ...any) error {
	var refused []string
	for _, s := range cells.ValueSizes {
		if bad(s) {
			refused = append(refused, units.ExactBytes(int64(s)))
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return fmt.Errorf("values %s: %s", strings.Join(refused, ", "), fmt.Sprintf(format, args...))
}

// ReadPassword reads a server's password (Redis's requirepass) from path
// (Config.AuthFile): a file kept from other users, as rdmakv's secrets
// are, trailing newline dropped.
func ReadPassword(path string) (string, error) {
	b, err := rdmakv.ReadPrivateFile(path)
	if err != nil {
		return "", err
	}
	if len(b) == 0 {
		return "", fmt.Errorf("%s: empty password", path)
	}
	return string(b), nil
}
