package bench

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

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv/rawsock"
)

// Baseline is a store other than rdmakv that a run drives with the same
// workload, so that rdmakv's figures stand beside ones a reader knows:
// Redis or memcached. It has no eager threshold; each operation is one
// request and its reply, carrying the value inline.
type Baseline interface {
	// Dialer opens the measured connections; the threshold is ignored.
	Dialer
	// Kind is the store's kind, one of results.Kinds.
	Kind() string
	// Addr is the server's host:port.
	Addr() string
	// Version is the server's version as it reports it.
	Version(ctx context.Context) (string, error)
	// CPU is the server process's CPU time so far, as it reports it.
	CPU(ctx context.Context) (user, sys time.Duration, err error)
	// Check refuses, in one error naming each, the cells the server
	// cannot store.
	Check(ctx context.Context, cfg Config) error
	// Close closes the control connection.
	Close() error
}

// BaselineConfig is how to reach a baseline and drive its connections.
type BaselineConfig struct {
	Kind string
	Addr string
	// Timeout bounds each request and each dial (0: 5 s).
	Timeout time.Duration
	// Depth is the requests in flight per connection.
	Depth int
	// Connections is the measured connections the process opens (0: 1).
	Connections int
	// Password is Redis's requirepass (empty: none).
	Password string
}

// OpenBaseline connects a control connection to the baseline at c.Addr,
// which also proves the server is there and speaks the kind's protocol.
func OpenBaseline(ctx context.Context, c BaselineConfig) (Baseline, error) {
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Second
	}
	c.Depth = max(c.Depth, 1)
	c.Connections = max(c.Connections, 1)
	switch c.Kind {
	case results.KindRedis:
		return openRedis(ctx, c)
	case results.KindMemcached:
		return openMemcached(ctx, c)
	}
	return nil, fmt.Errorf("target.kind %q is not a baseline", c.Kind)
}

// baselineErr turns a client library's transport errors into the
// sentinels the harness counts: deadlines as timeouts, a connection the
// server closed as closed. The library's own errors stay as they are.
func baselineErr(err error) error {
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

// baselineCells renames what a baseline's run measured: its cells have no
// threshold (0) and their protocol is the kind, a request and a reply.
func baselineCells(kind string, cells []results.CellLog) {
	for i := range cells {
		c := &cells[i].Cell
		c.Threshold, c.Protocol = 0, kind
		c.Hlog = results.HlogName(*c)
	}
}

func netDialer(timeout time.Duration) net.Dialer {
	return net.Dialer{Timeout: timeout, KeepAlive: -1}
}

// dialFunc is a client library's dial hook.
type dialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// blocking says whether the measured connections wait on blocking sockets.
func (c BaselineConfig) blocking() bool { return blockingSockets(c.Connections) }

// blockingSockets says whether a process with this many measured
// connections gives them blocking sockets (rawsock.BlockConn), rdmakv's
// over TCP and the baselines' alike: a thread per connection waits in the
// kernel, as a synchronous C client waits, while there are fewer
// connections than Ps, so that one stays free for the harness. With as
// many (one connection on one P, as in a pinned process), the runtime's
// monitor takes the P from a waiting thread and hands it back, and the
// poller does better; past that the poller shares the Ps among them.
func blockingSockets(connections int) bool {
	return connections < runtime.GOMAXPROCS(0)
}

// blockDial dials blocking sockets. The deadline a client sets before
// each request ends a wait up to a quarter of the timeout late rather than
// set the socket's timeout each time.
func blockDial(timeout time.Duration) dialFunc {
	return rawsock.BlockDialer{Timeout: timeout, Slack: timeout / 4}.DialContext
}

// rawDial dials sockets whose reads and writes are raw system calls under
// the poller (rdmakv/rawsock), as rdmakv's TCP transport's are, with
// the same slack on deadlines, which here re-arm the runtime's timers.
func rawDial(timeout time.Duration) dialFunc {
	d := netDialer(timeout)
	return rawsock.Dial(&d, timeout/4)
}

// seconds parses a server's CPU seconds ("12.345678"); 0 if it cannot.
func seconds(s string) time.Duration {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0
	}
	return time.Duration(f * float64(time.Second))
}

// refuseSizes is one error naming every value size of cfg that bad
// refuses, with why (format and args).
func refuseSizes(cfg Config, bad func(size int) bool, format string, args ...any) error {
	var refused []string
	for _, s := range cfg.ValueSizes {
		if bad(s) {
			refused = append(refused, workload.Size(s).String())
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return fmt.Errorf("values %s: %s", strings.Join(refused, ", "), fmt.Sprintf(format, args...))
}
