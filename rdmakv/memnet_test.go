package rdmakv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// BenchmarkEagerGetCPU measures the CPU the rdmakv core spends on one eager
// GET, client and server together, over memNet: a transport that moves
// nothing but bytes between two in-process ends, delivering to the server
// inside the client's Send and to the client from its own PollOnce, as the
// verbs transport does in busy mode. What is left is the core's own code
// path, which under CPU emulation is multiplied by the emulator's slowdown
// and lands on every eager round trip.
func BenchmarkEagerGetCPU(b *testing.B) { benchEagerGetCPU(b) }

// BenchmarkEagerGetCPUTraced is BenchmarkEagerGetCPU with WithTrace on:
// the difference is what tracing costs client and server per request.
func BenchmarkEagerGetCPUTraced(b *testing.B) {
	var sum time.Duration
	benchEagerGetCPU(b, WithTrace(func(_ context.Context, t *Trace) { sum += t.Server }))
	if sum <= 0 {
		b.Fatal("no server time traced")
	}
}

func benchEagerGetCPU(b *testing.B, opts ...Option) {
	_, c := memPair(b, opts...)
	ctx := context.Background()
	key := []byte("kvperf-bench-get-64B-0")
	if err := c.Set(ctx, key, make([]byte, 64)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		v, err := c.Get(ctx, key)
		if err != nil {
			b.Fatal(err)
		}
		v.Release()
	}
}

// TestCallerPollingHandoff runs the busy-mode reply handoff (the waiter
// polls and finds its reply in the slot) over memNet: replies reach the
// right request, and a reply that comes after its request gave up is
// disposed of without reaching the next request on that slot.
func TestCallerPollingHandoff(t *testing.T) {
	_, c := memPair(t, WithTimeout(50*time.Millisecond))
	if c.poller == nil {
		t.Fatal("memNet client is not caller-polled")
	}
	ctx := context.Background()
	for i := range 50 {
		key, val := []byte(fmt.Sprintf("k%d", i%7)), coreFill(1+i*13, byte(i))
		if err := c.Set(ctx, key, val); err != nil {
			t.Fatal(err)
		}
		v, err := c.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(v.Bytes(), val) {
			t.Fatalf("round %d: got %d bytes, want %d", i, len(v.Bytes()), len(val))
		}
		v.Release()
	}
	if err := c.Set(ctx, []byte("late"), []byte("old")); err != nil {
		t.Fatal(err)
	}
	st := c.conn.raw.(*memConn).memState
	st.hold(true)
	if _, err := c.Get(ctx, []byte("late")); !errors.Is(err, ErrTimeout) {
		t.Fatalf("held reply: got %v, want ErrTimeout", err)
	}
	st.hold(false) // the stale GET reply is now first in line
	if err := c.Set(ctx, []byte("late"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	v, err := c.Get(ctx, []byte("late"))
	if err != nil {
		t.Fatal(err)
	}
	if string(v.Bytes()) != "new" {
		t.Fatalf("got %q after a late reply, want \"new\"", v.Bytes())
	}
	v.Release()
	if n := st.inboxLen(); n != 0 {
		t.Errorf("%d replies left undelivered", n)
	}
}

// memPair starts a server and a busy-mode client over memNet, which
// stands in for tcp (the configuration accepts only real transport names)
// until the test ends; tests using it must not run in parallel.
func memPair(t testing.TB, opts ...Option) (*Server, *Client) {
	tcp, err := transport.Lookup("tcp")
	if err != nil {
		t.Fatal(err)
	}
	transport.RegisterNetwork(memNet{})
	t.Cleanup(func() { transport.RegisterNetwork(tcp) })
	s, _ := coreServer(t, func(c *ServerConfig) { c.Listen = "mem-" + t.Name() })
	return s, coreDial(t, s, append([]Option{WithPoll(transport.PollBusy)}, opts...)...)
}

// memNet is the in-process transport of BenchmarkEagerGetCPU. It supports
// two-sided messages only.
type memNet struct{}

var memListeners sync.Map // addr -> *memListener

type memListener struct {
	addr   string
	cfg    transport.Config
	accept transport.AcceptFunc
}

func (memNet) Name() string { return "tcp" }

func (memNet) LocalAddr() (netip.Addr, error) { return netip.AddrFrom4([4]byte{127, 0, 0, 1}), nil }

func (memNet) Listen(addr string, cfg transport.Config, accept transport.AcceptFunc) (transport.Listener, error) {
	l := &memListener{addr: addr, cfg: cfg, accept: accept}
	if _, dup := memListeners.LoadOrStore(addr, l); dup {
		return nil, errors.New("mem: address in use")
	}
	return l, nil
}

func (memNet) Dial(_ context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Conn, error) {
	v, ok := memListeners.Load(addr)
	if !ok {
		return nil, errors.New("mem: nothing listening")
	}
	l := v.(*memListener)
	cc, sc := newMemConn(cfg, false), newMemConn(l.cfg, true)
	cc.peer, sc.peer = sc, cc
	cc.h = h
	sc.h = l.accept(sc)
	return cc, nil
}

func (l *memListener) Addr() string { return l.addr }
func (l *memListener) Info() transport.Info {
	return transport.Info{Transport: "mem", Poll: l.cfg.Poll}
}
func (l *memListener) Register(size int, _ transport.Access) (transport.Region, error) {
	return memRegion(make([]byte, size)), nil
}
func (l *memListener) Close() error { memListeners.Delete(l.addr); return nil }

type memRegion []byte

func (r memRegion) Bytes() []byte   { return r }
func (r memRegion) Addr() uint64    { return 0 }
func (r memRegion) RKey() uint32    { return 1 }
func (r memRegion) LKey() uint32    { return 1 }
func (r memRegion) Close() error    { return nil }
func (memRegion) String() string    { return "mem" }
func (memConn) notSupported() error { return errors.New("mem: two-sided messages only") }

type memConn struct {
	*memState
}

type memState struct {
	peer   *memConn
	h      transport.Handler
	server bool // deliver inside the peer's Send
	// polled: a caller has polled, so messages wait in inbox for the next
	// PollOnce; before that (HELLO) they are delivered inside Send, as the
	// verbs transport's background poller would.
	polled bool
	// held keeps messages out of inbox while set (a reply that is late).
	held    bool
	heldMsg []int
	mu      sync.Mutex
	bufs    [][]byte
	msgs    []transport.Message
	free    []int
	inbox   []int
	closed  bool

	// afterDeliver, when set, runs once after PollOnce has handed the
	// next message to the handler, before the waiter sees it.
	afterDeliver func()
}

func newMemConn(cfg transport.Config, server bool) *memConn {
	st := &memState{server: server}
	for i := 0; i < cfg.RecvDepth; i++ {
		st.bufs = append(st.bufs, make([]byte, cfg.MaxMessage))
		st.free = append(st.free, i)
	}
	st.msgs = make([]transport.Message, cfg.RecvDepth)
	return &memConn{st}
}

func (c *memConn) Send(a, b, d []byte) error {
	p := c.peer
	p.mu.Lock()
	if p.closed || len(p.free) == 0 {
		p.mu.Unlock()
		return transport.ErrClosed
	}
	i := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	n := copy(p.bufs[i], a)
	n += copy(p.bufs[i][n:], b)
	n += copy(p.bufs[i][n:], d)
	m := &p.msgs[i]
	m.Kind, m.Data, m.Len = transport.KindRecv, p.bufs[i][:n], n
	m.Bind(p, i)
	if !p.server && p.held {
		p.heldMsg = append(p.heldMsg, i)
		p.mu.Unlock()
		return nil
	}
	if !p.server && p.polled {
		p.inbox = append(p.inbox, i)
		p.mu.Unlock()
		return nil
	}
	p.mu.Unlock()
	p.h.Deliver(p, m)
	return nil
}

func (c *memConn) ReleaseMessage(i int) {
	c.mu.Lock()
	c.free = append(c.free, i)
	c.mu.Unlock()
}

func (st *memState) hold(on bool) {
	st.mu.Lock()
	st.held = on
	if !on {
		st.inbox = append(st.inbox, st.heldMsg...)
		st.heldMsg = st.heldMsg[:0]
	}
	st.mu.Unlock()
}

func (st *memState) inboxLen() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.inbox)
}

func (c *memConn) CallerPolls() bool { return true }

func (c *memConn) PollOnce() bool {
	c.mu.Lock()
	c.polled = true
	if len(c.inbox) == 0 {
		c.mu.Unlock()
		runtime.Gosched() // the reply comes from another goroutine
		return false
	}
	i := c.inbox[0]
	c.inbox = c.inbox[:copy(c.inbox, c.inbox[1:])]
	f := c.afterDeliver
	c.afterDeliver = nil
	c.mu.Unlock()
	c.h.Deliver(c, &c.msgs[i])
	if f != nil {
		f()
	}
	return true
}

// onDeliver sets afterDeliver. It also sets polled: a message delivered
// inside the peer's Send would run f under the peer's handler, not on the
// waiter's poll.
func (st *memState) onDeliver(f func()) {
	st.mu.Lock()
	st.afterDeliver, st.polled = f, true
	st.mu.Unlock()
}

func (c *memConn) Write(transport.Region, int, int, uint64, uint32) error { return c.notSupported() }
func (c *memConn) WriteImm(transport.Region, int, int, uint64, uint32, uint32) error {
	return c.notSupported()
}
func (c *memConn) Read(transport.Region, int, int, uint64, uint32) error { return c.notSupported() }
func (c *memConn) Register(size int, _ transport.Access) (transport.Region, error) {
	return memRegion(make([]byte, size)), nil
}
func (c *memConn) Grant(transport.Region, int, int, transport.Access) (uint32, error) {
	return 0, c.notSupported()
}
func (c *memConn) Revoke(uint32) error  { return c.notSupported() }
func (c *memConn) LocalAddr() string    { return "mem" }
func (c *memConn) RemoteAddr() string   { return "mem" }
func (c *memConn) Info() transport.Info { return transport.Info{Transport: "mem"} }
func (c *memConn) Close() error {
	for _, e := range []*memConn{c, c.peer} {
		e.mu.Lock()
		was := e.closed
		e.closed = true
		e.mu.Unlock()
		if !was {
			e.h.Closed(e, nil)
		}
	}
	return nil
}
