// Package tcp is a pure-Go rdmakv transport that emulates the verbs
// primitives over one TCP connection: registered regions with random
// rkeys, memory windows, SEND/RECV with a fixed receive queue, and
// one-sided WRITE, WRITE_WITH_IMM and READ checked for key, bounds and
// access rights on the target as an RNIC would. It lets the rdmakv protocol
// run unchanged on machines without RDMA and is the baseline the verbs
// transport is compared with. The wire format is described in frame.go.
//
// Where it differs from verbs:
//
//   - One TCP stream carries everything, in order. A receiver whose handler
//     holds every receive buffer stops reading (the RNR stall), and until it
//     releases one, completions for its own one-sided ops queued behind the
//     stalled SEND wait too.
//   - Receive buffers are per connection (Config.RecvDepth each); there is no
//     shared receive queue.
//   - Region memory is anonymous mmap. Closing a region waits for remote
//     accesses and local ops in flight on it; using Bytes after Close faults.
//     Closing a dialed connection frees the regions registered on it; a
//     connection lost to its peer keeps them mapped until it is closed.
//   - A refused one-sided access is answered with an ERROR frame; both ends
//     then close that connection, as an RC QP goes to the error state.
//
// On Linux a connection's socket is read and written with raw system calls
// under the runtime's poller (rdmakv/rawsock), or, dialed with
// Config.Blocking, as a blocking socket; with Config.NetConn, and always
// on other systems, through the standard net.Conn (stream.go).
package tcp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Name is the transport's registry name.
const Name = transport.TCP

// MaxDepth bounds Config.RecvDepth and SendDepth on this transport; the
// other defaults and limits are transport's, the same for every transport.
const MaxDepth = 1 << 16

func init() { transport.RegisterNetwork(network{}) }

type network struct{}

func (network) Name() string { return Name }

// LocalAddr is the loopback address.
func (network) LocalAddr() (netip.Addr, error) { return netip.AddrFrom4([4]byte{127, 0, 0, 1}), nil }

// Listen binds addr and serves connections until the Listener is closed.
// Every accepted connection gets cfg.RecvDepth receive buffers of
// cfg.MaxMessage bytes of its own (there is no shared receive queue).
func (network) Listen(addr string, cfg transport.Config, accept transport.AcceptFunc) (transport.Listener, error) {
	cfg, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	if accept == nil {
		return nil, errors.New("tcp: listen: nil AcceptFunc")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("tcp: %w", netCause(err))
	}
	l := &listener{
		ln:     ln.(*net.TCPListener),
		cfg:    cfg,
		accept: accept,
		pd:     newPD(),
		addr:   ln.Addr().String(),
		conns:  make(map[*conn]struct{}),
		done:   make(chan struct{}),
	}
	go l.acceptLoop()
	go l.watch()
	return l, nil
}

// Dial connects to addr; ctx bounds the connect. The connection is its own
// protection domain: Conn.Register regions live (and die) with it.
func (network) Dial(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Conn, error) {
	cfg, err := checkConfig(cfg)
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, errors.New("tcp: dial: nil Handler")
	}
	s, err := dialStream(ctx, addr, cfg)
	if err != nil {
		return nil, fmt.Errorf("tcp: %w", netCause(err))
	}
	c, err := newConn(s, cfg, newPD(), true)
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	c.start(h)
	return c, nil
}

// netCause is a failed dial's or listen's error without the operation
// and address a net.OpError repeats, which the caller's message names
// (rdmakv: dial ADDR: tcp: connect: connection refused); it unwraps to
// the OpError.
func netCause(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return opCause{oe}
	}
	return err
}

type opCause struct{ *net.OpError }

func (e opCause) Error() string { return e.OpError.Err.Error() }
func (e opCause) Unwrap() error { return e.OpError }

// checkConfig fills zero sizes with the defaults and reports every field
// out of range.
func checkConfig(cfg transport.Config) (transport.Config, error) {
	return cfg.Check("tcp: ", MaxDepth)
}
