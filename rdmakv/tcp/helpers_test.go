package tcp

import (
	"context"
	"errors"
	"flag"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// blocking dials every test's connections with blocking sockets
// (transport.Config.Blocking), and netConn reads and writes every
// socket, dialed or accepted, through net.Conn (transport.Config.NetConn):
// make test runs the package each way.
var (
	blocking = flag.Bool("blocking", false, "dial blocking sockets")
	netConn  = flag.Bool("netconn", false, "read and write every socket through net.Conn")
)

// withMode is cfg with Blocking and NetConn set as the -blocking and
// -netconn flags say.
func withMode(cfg transport.Config) transport.Config {
	cfg.Blocking = cfg.Blocking || *blocking
	cfg.NetConn = cfg.NetConn || *netConn
	return cfg
}

// hangGuard bounds every wait in these tests; it never measures speed.
const hangGuard = 20 * time.Second

// recorder is a Handler that queues what arrives for the test to inspect.
type recorder struct {
	msgs    chan *transport.Message
	closed  chan error
	nClosed atomic.Int32
	auto    bool // copy and release at once, queueing the copy
	copies  chan []byte
}

func newRecorder() *recorder {
	return &recorder{msgs: make(chan *transport.Message, 4096), closed: make(chan error, 4), copies: make(chan []byte, 4096)}
}

func (r *recorder) Deliver(c transport.Conn, m *transport.Message) {
	if r.auto {
		r.copies <- append([]byte(nil), m.Data...)
		m.Release()
		return
	}
	r.msgs <- m
}

func (r *recorder) Closed(c transport.Conn, err error) {
	r.nClosed.Add(1)
	r.closed <- err
}

// await returns what ch yields next, failing the test with what if
// nothing comes within hangGuard.
func await[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangGuard):
		t.Fatal(what)
	}
	var zero T
	return zero
}

func (r *recorder) next(t testing.TB) *transport.Message {
	t.Helper()
	return await(t, r.msgs, "no message delivered")
}

func (r *recorder) waitClosed(t testing.TB) error {
	t.Helper()
	return await(t, r.closed, "Closed was not called")
}

// server is a listener whose accepted connections are handed to the test.
type server struct {
	ln    transport.Listener
	conns chan transport.Conn
	recs  chan *recorder
	auto  bool
}

func listen(t testing.TB, cfg transport.Config) *server {
	t.Helper()
	s := &server{conns: make(chan transport.Conn, 16), recs: make(chan *recorder, 16)}
	ln, err := network{}.Listen("127.0.0.1:0", withMode(cfg), func(c transport.Conn) transport.Handler {
		r := newRecorder()
		r.auto = s.auto
		s.conns <- c
		s.recs <- r
		return r
	})
	if err != nil {
		t.Fatal(err)
	}
	s.ln = ln
	t.Cleanup(func() { _ = ln.Close() })
	return s
}

func (s *server) accepted(t testing.TB) (transport.Conn, *recorder) {
	t.Helper()
	c := await(t, s.conns, "no connection accepted")
	return c, <-s.recs
}

func dial(t testing.TB, addr string, cfg transport.Config) (transport.Conn, *recorder) {
	t.Helper()
	r := newRecorder()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	c, err := network{}.Dial(ctx, addr, withMode(cfg), r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, r
}

// pair is one dialed connection and its accepted end.
type pair struct {
	srv        *server
	cli, sc    transport.Conn
	crec, srec *recorder
}

// newPair listens with cfg and dials the listener once.
func newPair(t testing.TB, cfg transport.Config) *pair {
	t.Helper()
	return listen(t, cfg).pair(t, cfg)
}

// pair dials s with cfg and takes the end s accepted.
func (s *server) pair(t testing.TB, cfg transport.Config) *pair {
	t.Helper()
	p := &pair{srv: s}
	p.cli, p.crec = dial(t, s.ln.Addr(), cfg)
	p.sc, p.srec = s.accepted(t)
	return p
}

// regions registers n bytes on the client for its side of one-sided
// transfers and n bytes on the server's listener, with remote access, for
// them to target.
func (p *pair) regions(t testing.TB, n int, remote transport.Access) (local, target transport.Region) {
	t.Helper()
	return register(t, p.cli, n, transport.AccessLocal), register(t, p.srv.ln, n, remote)
}

func register(t testing.TB, r interface {
	Register(int, transport.Access) (transport.Region, error)
}, size int, access transport.Access) transport.Region {
	t.Helper()
	reg, err := r.Register(size, access)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reg.Close() })
	return reg
}

func fill(b []byte, seed byte) {
	for i := range b {
		b[i] = byte(i*7) + seed
	}
}

func wantErr(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want one wrapping %v", err, target)
	}
}

func smallCfg() transport.Config {
	return transport.Config{MaxMessage: 4096, RecvDepth: 16, SendDepth: 16}
}

// shortWait is how long a test watches for something that must not happen
// (a delivery past a full receive queue). It asserts absence, not speed.
func shortWait() <-chan time.Time { return time.After(300 * time.Millisecond) }
