//go:build rdmavm && linux && cgo

package verbs

import (
	"context"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// vmAddr is the guest's RDMA address (RDMAKV_ADDR, set by the VM rig).
func vmAddr(t testing.TB) string {
	t.Helper()
	a := os.Getenv("RDMAKV_ADDR")
	if a == "" {
		t.Fatal("RDMAKV_ADDR is not set: these tests run inside the Soft-RoCE VM (make test-rdma)")
	}
	return a
}

func testConfig(poll transport.Poll) transport.Config {
	return transport.Config{MaxMessage: 4096, RecvDepth: 16, SendDepth: 16, Poll: poll}
}

// recorder is a Handler that keeps copies of what arrives.
type recorder struct {
	mu     sync.Mutex
	msgs   chan got
	closed chan error
	once   sync.Once
	echo   bool
	count  int
	// snap, when set, is called as each message is delivered; its result
	// travels with the message (got.snap).
	snap func() []byte
}

type got struct {
	kind transport.MessageKind
	data []byte
	imm  uint32
	n    int
	snap []byte
}

func newRecorder(echo bool) *recorder {
	return &recorder{msgs: make(chan got, 1024), closed: make(chan error, 1), echo: echo}
}

func (r *recorder) Deliver(c transport.Conn, m *transport.Message) {
	g := got{kind: m.Kind, data: append([]byte(nil), m.Data...), imm: m.Imm, n: m.Len}
	r.mu.Lock()
	if r.snap != nil {
		g.snap = r.snap()
	}
	r.mu.Unlock()
	m.Release()
	if r.echo && g.kind == transport.KindRecv {
		if err := c.Send(g.data, nil, nil); err != nil && !errors.Is(err, transport.ErrClosed) {
			panic(err)
		}
		return
	}
	r.msgs <- g
}

func (r *recorder) setSnap(f func() []byte) {
	r.mu.Lock()
	r.snap = f
	r.mu.Unlock()
}

func (r *recorder) Closed(_ transport.Conn, err error) {
	r.mu.Lock()
	r.count++
	r.mu.Unlock()
	r.once.Do(func() { r.closed <- err })
}

func (r *recorder) closedCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count
}

func (r *recorder) next(t *testing.T) got {
	t.Helper()
	select {
	case g := <-r.msgs:
		return g
	case <-time.After(20 * time.Second):
		t.Fatal("hang guard: no message")
	}
	return got{}
}

// server is a listener whose accepted connections come out on conns.
type server struct {
	l     transport.Listener
	conns chan transport.Conn
	recs  chan *recorder
}

func startServer(t testing.TB, cfg transport.Config, echo bool) *server {
	t.Helper()
	s := &server{conns: make(chan transport.Conn, 16), recs: make(chan *recorder, 16)}
	l, err := network{}.Listen(vmAddr(t)+":0", cfg, func(c transport.Conn) transport.Handler {
		r := newRecorder(echo)
		s.conns <- c
		s.recs <- r
		return r
	})
	if err != nil {
		t.Fatal(err)
	}
	s.l = l
	t.Cleanup(func() { l.Close() })
	return s
}

// listener is the verbs listener behind what Listen returned.
func (s *server) listener() *listener {
	if sl, ok := s.l.(sharedListener); ok {
		return sl.listener
	}
	return s.l.(*listener)
}

func dialTest(t testing.TB, s *server, cfg transport.Config, h transport.Handler) transport.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := network{}.Dial(ctx, s.l.Addr(), cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func (s *server) accepted(t *testing.T) (transport.Conn, *recorder) {
	t.Helper()
	select {
	case c := <-s.conns:
		return c, <-s.recs
	case <-time.After(20 * time.Second):
		t.Fatal("hang guard: no connection accepted")
	}
	return nil, nil
}

// guard fails the test if fn does not return in d (a hang guard only).
func guard(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("hang guard: still running after %v", d)
	}
}

// windowServer starts a listener with poll and a 64 KiB region on it for
// granting windows; both go when the test ends.
func windowServer(t *testing.T, poll transport.Poll) (transport.Config, *server, transport.Region) {
	t.Helper()
	cfg := testConfig(poll)
	s := startServer(t, cfg, false)
	pool, err := s.l.Register(64<<10, transport.AccessLocal)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return cfg, s, pool
}

func TestLocalAddrIsTheRigAddress(t *testing.T) {
	ip, err := LocalAddr()
	if err != nil || ip.String() != os.Getenv("RDMAKV_ADDR") {
		t.Fatalf("LocalAddr() = %v, %v; want RDMAKV_ADDR %s (rxe0's netdev)", ip, err, os.Getenv("RDMAKV_ADDR"))
	}
}
