package rdmakv

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// coreRaw speaks the protocol by hand over the tcp transport.
type coreRaw struct {
	conn transport.Conn
	in   chan wire.Frame
}

func (r *coreRaw) Deliver(_ transport.Conn, m *transport.Message) {
	f, err := wire.Decode(m.Data)
	if err == nil {
		f.Key, f.Value = bytes.Clone(f.Key), bytes.Clone(f.Value)
		r.in <- f
	}
	m.Release()
}

func (r *coreRaw) Closed(transport.Conn, error) {}

func coreRawDial(t *testing.T, s *Server) *coreRaw {
	t.Helper()
	n, err := transport.Lookup("tcp")
	if err != nil {
		t.Fatal(err)
	}
	r := &coreRaw{in: make(chan wire.Frame, 64)}
	r.conn, err = n.Dial(context.Background(), s.Addr(), transport.Config{MaxMessage: 4096, RecvDepth: 16, SendDepth: 16}, r)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.conn.Close() })
	var hb [wire.HelloBodySize]byte
	(&wire.HelloBody{RecvSize: 4096, Threshold: 0, Depth: 4}).Encode(hb[:])
	if f := r.call(t, wire.Header{Type: wire.Hello}, nil, hb[:]); f.Type != wire.HelloReply || f.Status != wire.OK {
		t.Fatalf("HELLO answered %s %s", f.Type, f.Status)
	}
	return r
}

func (r *coreRaw) call(t *testing.T, h wire.Header, key, value []byte) wire.Frame {
	t.Helper()
	if err := r.conn.Send(wire.AppendFrame(nil, h, key, value), nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-r.in:
		return f
	case <-time.After(10 * time.Second):
		t.Fatalf("no reply to %s (hang guard)", h.Type)
		return wire.Frame{}
	}
}

// TestLeaseCap: a client that collects grants and never commits them is
// refused with NO_SPACE once it holds twice the in-flight limit, and gets
// grants again as soon as it commits one. Without the cap, zero-length
// grants (which take no pool space) would grow the lease table without
// bound until the leases ran out.
func TestLeaseCap(t *testing.T) {
	const depth = 4
	s, _ := coreServer(t, func(c *ServerConfig) { c.RecvDepth = depth; c.Lease = time.Minute })
	r := coreRawDial(t, s)
	var tokens []uint32
	for i := 0; i < 2*depth; i++ {
		f := r.call(t, wire.Header{Type: wire.SetRdvReq, ReqID: uint32(i + 1)}, []byte("k"), nil)
		if f.Type != wire.SetRdvGrant || f.Status != wire.OK {
			t.Fatalf("grant %d: %s %s, want SET_RDV_GRANT OK", i, f.Type, f.Status)
		}
		tokens = append(tokens, f.Token)
	}
	f := r.call(t, wire.Header{Type: wire.SetRdvReq, ReqID: 100}, []byte("k"), nil)
	if f.Type != wire.SetRdvGrant || f.Status != wire.NoSpace {
		t.Fatalf("grant past the cap: %s %s, want SET_RDV_GRANT NO_SPACE", f.Type, f.Status)
	}
	f = r.call(t, wire.Header{Type: wire.SetFin, ReqID: 101, Token: tokens[0]}, nil, nil)
	if f.Type != wire.SetReply || f.Status != wire.OK {
		t.Fatalf("SET_FIN: %s %s", f.Type, f.Status)
	}
	f = r.call(t, wire.Header{Type: wire.SetRdvReq, ReqID: 102}, []byte("k"), nil)
	if f.Type != wire.SetRdvGrant || f.Status != wire.OK {
		t.Fatalf("grant after a commit freed a lease: %s %s", f.Type, f.Status)
	}
}

// TestNoGoroutineLeak runs both protocols, a cancelled request and a held
// Value, then closes client and server (the server twice): every goroutine
// they started must end.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		s, err := Listen(ServerConfig{Listen: "127.0.0.1:0", Transport: "tcp", PoolSize: 4 << 20, MaxValue: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := s.Close(); err != nil {
				t.Errorf("server Close: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Errorf("second server Close: %v", err)
			}
		}()
		c, err := Dial(context.Background(), s.Addr(), WithTransport("tcp"), WithStagingSize(1<<20))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx := context.Background()
		for _, n := range []int{10, 100000} {
			if err := c.Set(ctx, []byte("k"), coreFill(n, 1)); err != nil {
				t.Fatal(err)
			}
			v, err := c.Get(ctx, []byte("k"))
			if err != nil {
				t.Fatal(err)
			}
			v.Release()
		}
		held, err := c.Get(ctx, []byte("k"))
		if err != nil {
			t.Fatal(err)
		}
		defer held.Release()
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := c.Get(cancelled, []byte("k")); err == nil {
			t.Fatal("Get with a cancelled context succeeded")
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after Close (hang guard):\n%s",
				before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// gatedNetwork wraps a transport so the listener's first Register waits for
// the test: connections are then accepted while Listen is still setting up.
type gatedNetwork struct {
	transport.Network
	gate      chan struct{}
	listening chan string
}

type gatedListener struct {
	transport.Listener
	gate chan struct{}
}

func (g gatedNetwork) Listen(addr string, cfg transport.Config, accept transport.AcceptFunc) (transport.Listener, error) {
	ln, err := g.Network.Listen(addr, cfg, accept)
	if err == nil {
		g.listening <- ln.Addr()
	}
	return gatedListener{ln, g.gate}, err
}

func (l gatedListener) Register(size int, access transport.Access) (transport.Region, error) {
	<-l.gate
	return l.Listener.Register(size, access)
}

// TestRequestsBeforeListenReturns: a client may connect and send as soon as
// the transport listens, before the value pool is registered. Its requests
// must wait for the server to be ready, not run against a missing pool.
func TestRequestsBeforeListenReturns(t *testing.T) {
	orig, err := transport.Lookup("tcp")
	if err != nil {
		t.Fatal(err)
	}
	g := gatedNetwork{Network: orig, gate: make(chan struct{}), listening: make(chan string, 1)}
	transport.RegisterNetwork(g)
	defer transport.RegisterNetwork(orig)
	type result struct {
		s   *Server
		err error
	}
	started := make(chan result, 1)
	go func() {
		s, err := Listen(ServerConfig{Listen: "127.0.0.1:0", Transport: "tcp", PoolSize: 1 << 20})
		started <- result{s, err}
	}()
	var addr string
	select {
	case addr = <-g.listening:
	case <-time.After(10 * time.Second):
		t.Fatal("server never listened (hang guard)")
	}
	r := &coreRaw{in: make(chan wire.Frame, 8)}
	r.conn, err = orig.Dial(context.Background(), addr, transport.Config{MaxMessage: 4096, RecvDepth: 8, SendDepth: 8}, r)
	if err != nil {
		t.Fatal(err)
	}
	defer r.conn.Close()
	var hb [wire.HelloBodySize]byte
	(&wire.HelloBody{RecvSize: 4096, Threshold: 4096, Depth: 4}).Encode(hb[:])
	for _, frame := range [][]byte{
		wire.AppendFrame(nil, wire.Header{Type: wire.Hello, ReqID: 1}, nil, hb[:]),
		wire.AppendFrame(nil, wire.Header{Type: wire.Set, ReqID: 2}, []byte("early"), []byte("bird")),
	} {
		if err := r.conn.Send(frame, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case f := <-r.in:
		t.Fatalf("server answered %s before its pool was registered", f.Type)
	case <-time.After(200 * time.Millisecond): // absence, not speed
	}
	close(g.gate)
	res := <-started
	if res.err != nil {
		t.Fatal(res.err)
	}
	defer res.s.Close()
	for _, want := range []wire.Type{wire.HelloReply, wire.SetReply} {
		select {
		case f := <-r.in:
			if f.Type != want || f.Status != wire.OK {
				t.Fatalf("got %s %s, want %s OK", f.Type, f.Status, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no %s (hang guard)", want)
		}
	}
	c := coreDial(t, res.s)
	v, err := c.Get(context.Background(), []byte("early"))
	if err != nil || string(v.Bytes()) != "bird" {
		t.Fatalf("Get(early) = %v", err)
	}
	v.Release()
}

// TestGrantShare: a connection that collects 1 MiB set grants and never
// commits them stops at three quarters of the pool (beyond its share only
// while a quarter stays free), and a well-behaved client's 1 MiB sets still
// succeed while the hog holds them.
func TestGrantShare(t *testing.T) {
	const pool = 16 << 20
	s, _ := coreServer(t, func(c *ServerConfig) {
		c.PoolSize, c.MaxValue, c.MaxGrantBytes, c.RecvDepth, c.Lease = pool, 1<<20, 2<<20, 64, time.Minute
	})
	hog := coreRawDial(t, s)
	held := 0
	for i := 0; ; i++ {
		f := hog.call(t, wire.Header{Type: wire.SetRdvReq, ReqID: uint32(i + 1), Length: 1 << 20}, []byte("hog"), nil)
		if f.Status == wire.NoSpace {
			break
		}
		if f.Type != wire.SetRdvGrant || f.Status != wire.OK || i > 64 {
			t.Fatalf("grant %d: %s %s", i, f.Type, f.Status)
		}
		held++
	}
	if held < 2 || held > 12 {
		t.Errorf("the hog got %d grants of 1 MiB from a 16 MiB pool, want its 2 MiB share and no more than 3/4 of the pool", held)
	}
	c := coreDial(t, s)
	val := coreFill(1<<20, 3)
	for i := range 3 {
		if err := c.Set(context.Background(), []byte{'k', byte(i)}, val); err != nil {
			t.Fatalf("well-behaved set %d while the hog holds %d MiB: %v", i, held, err)
		}
	}
}
