package rdmakv

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// coreFakeServer speaks the server side of the protocol by hand so a test can
// delay replies. It answers HELLO, holds the first GET's reply back until
// the test releases it, and answers later GETs inline.
type coreFakeServer struct {
	t       *testing.T
	ln      transport.Listener
	release chan struct{}
	got     chan wire.Frame // requests after HELLO, copied
	mu      sync.Mutex
	gets    int
}

func newCoreFakeServer(t *testing.T) *coreFakeServer {
	f := &coreFakeServer{t: t, release: make(chan struct{}), got: make(chan wire.Frame, 16)}
	n, err := transport.Lookup("tcp")
	if err != nil {
		t.Fatal(err)
	}
	cfg := transport.Config{MaxMessage: 8192, RecvDepth: 16, SendDepth: 16}
	f.ln, err = n.Listen("127.0.0.1:0", cfg, func(transport.Conn) transport.Handler { return f })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.ln.Close() })
	return f
}

func (f *coreFakeServer) reply(c transport.Conn, h wire.Header, value []byte) {
	b := wire.AppendFrame(nil, h, nil, value)
	_ = c.Send(b, nil, nil)
}

func (f *coreFakeServer) Deliver(c transport.Conn, m *transport.Message) {
	fr, err := wire.Decode(m.Data)
	if err != nil {
		m.Release()
		return
	}
	fr.Key = bytes.Clone(fr.Key)
	fr.Value = bytes.Clone(fr.Value)
	m.Release()
	switch fr.Type {
	case wire.Hello:
		var lim [wire.LimitsSize]byte
		(&wire.Limits{PoolSize: 1 << 20, MaxValue: 1 << 20, MaxEager: 8000, MaxKey: 64, LeaseMillis: 1000, MaxInflight: 4}).Encode(lim[:])
		f.reply(c, wire.Header{Type: wire.HelloReply, ReqID: fr.ReqID, Credit: 1 << 30}, lim[:])
		return
	case wire.Get:
		f.mu.Lock()
		f.gets++
		first := f.gets == 1
		f.mu.Unlock()
		if first {
			go func() {
				<-f.release
				f.reply(c, wire.Header{Type: wire.GetReplyRdv, ReqID: fr.ReqID, Addr: 4096, RKey: 99, Length: 100, Token: 7}, nil)
			}()
		} else {
			f.reply(c, wire.Header{Type: wire.GetReplyInline, ReqID: fr.ReqID}, []byte("fresh"))
		}
	}
	f.got <- fr
}

func (f *coreFakeServer) Closed(transport.Conn, error) {}

func (f *coreFakeServer) next(t *testing.T) wire.Frame {
	t.Helper()
	select {
	case fr := <-f.got:
		return fr
	case <-time.After(10 * time.Second):
		t.Fatal("fake server got nothing (hang guard)")
	}
	panic("unreachable")
}

// TestTimeoutLateReply: a GET times out; its rendezvous reply arrives late
// and the client answers it with GET_RELEASE for the reply's token, then
// keeps working.
func TestTimeoutLateReply(t *testing.T) {
	f := newCoreFakeServer(t)
	c, err := Dial(context.Background(), f.ln.Addr(), WithTransport("tcp"), WithTimeout(100*time.Millisecond),
		WithStagingSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Limits().MaxInflight != 4 {
		t.Fatalf("limits %+v", c.Limits())
	}
	if _, err := c.Get(context.Background(), []byte("slow")); !errors.Is(err, ErrTimeout) {
		t.Fatalf("Get against a silent server: %v, want ErrTimeout", err)
	}
	if fr := f.next(t); fr.Type != wire.Get {
		t.Fatalf("server saw %s", fr.Type)
	}
	close(f.release)
	if fr := f.next(t); fr.Type != wire.GetRelease || fr.Token != 7 {
		t.Fatalf("late rendezvous reply answered with %s token %d, want GET_RELEASE token 7", fr.Type, fr.Token)
	}
	v, err := c.Get(context.Background(), []byte("again"))
	if err != nil || string(v.Bytes()) != "fresh" || v.Protocol() != Eager {
		t.Fatalf("Get after a timeout: %v", err)
	}
	v.Release()
}

// coreFakeVerbs stands in for a verbs build on a machine without an RDMA NIC.
type coreFakeVerbs struct{}

func (coreFakeVerbs) Name() string { return "verbs" }
func (coreFakeVerbs) LocalAddr() (netip.Addr, error) {
	return netip.Addr{}, transport.ErrNoDevice
}
func (coreFakeVerbs) Listen(string, transport.Config, transport.AcceptFunc) (transport.Listener, error) {
	return nil, transport.ErrNoDevice
}
func (coreFakeVerbs) Dial(context.Context, string, transport.Config, transport.Handler) (transport.Conn, error) {
	return nil, transport.ErrNoDevice
}

func TestAutoFallsBackToTCP(t *testing.T) {
	if _, err := transport.Lookup("verbs"); err != nil {
		transport.RegisterNetwork(coreFakeVerbs{})
	}
	logs := &logbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, nil))
	s, err := Listen(ServerConfig{Local: true, Transport: "auto", PoolSize: 1 << 20, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := Dial(context.Background(), s.Addr(), WithTransport("auto"), WithLogger(log), WithStagingSize(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if s.Info().Transport != "tcp" || c.Info().Transport != "tcp" {
		t.Fatalf("auto picked %q / %q, want tcp", s.Info().Transport, c.Info().Transport)
	}
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") {
		t.Errorf("a local tcp server listens on %s, want 127.0.0.1", s.Addr())
	}
	if n := strings.Count(logs.String(), "rdmakv: transport auto: using tcp"); n != 2 {
		t.Fatalf("want the choice said once each by server and client, got:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "no RDMA device") {
		t.Errorf("the choice does not say why:\n%s", logs.String())
	}
}

// TestStagingOverflow moves values larger than the staging region: they
// take the temporary-region path and still round-trip.
func TestStagingOverflow(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s, WithStagingSize(64<<10))
	ctx := context.Background()
	val := coreFill(1<<20, 9)
	if err := c.Set(ctx, []byte("big"), val); err != nil {
		t.Fatal(err)
	}
	v, err := c.Get(ctx, []byte("big"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(v.Bytes(), val) || v.Protocol() != Rendezvous {
		t.Fatal("value larger than staging did not round-trip")
	}
	v.Release()
}

// TestZeroAllocs checks the data path allocates nothing per operation
// once warm (client, server and transport together), eager and
// rendezvous, where staging has grown to what the value needs. A client
// of depth 1 reads its replies itself (Client.reader), a path of its own.
// The TCP transport's two paths to its sockets, raw system calls and
// net.Conn, are each held to it.
func TestZeroAllocs(t *testing.T) {
	for _, netConn := range []bool{false, true} {
		name := "default"
		if netConn {
			name = "netconn"
		}
		t.Run(name, func(t *testing.T) {
			s, _ := coreServer(t, func(c *ServerConfig) { c.NetConn = c.NetConn || netConn })
			var opts []Option // the flags' otherwise
			if netConn {
				opts = append(opts, WithNetConn(true))
			}
			traces := 0
			hook := func(context.Context, *Trace) { traces++ }
			clients := []*Client{
				coreDial(t, s, opts...),
				coreDial(t, s, append(opts, WithTrace(hook))...),
				coreDial(t, s, append(opts, WithDepth(1))...),
			}
			for _, c := range clients {
				if c.opts.depth == 1 && c.reader == nil {
					t.Fatal("a client of depth 1 over tcp does not read its replies itself")
				}
				testZeroAllocs(t, c)
			}
			if traces == 0 {
				t.Fatal("the traced client traced nothing")
			}
		})
	}
}

func testZeroAllocs(t *testing.T, c *Client) {
	ctx := context.Background()
	for _, size := range []int{100, 100 << 10} {
		key, val := []byte("k"), coreFill(size, 1)
		op := func() {
			if err := c.Set(ctx, key, val); err != nil {
				t.Fatal(err)
			}
			v, err := c.Get(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			v.Release()
		}
		for i := 0; i < 100; i++ {
			op()
		}
		if n := testing.AllocsPerRun(300, op); n >= 1 {
			t.Fatalf("Set+Get of %d bytes allocates %.2f times per operation (tracing: %v)", size, n, c.opts.trace != nil)
		}
	}
}
