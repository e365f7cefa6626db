package rdmakv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
	_ "github.com/kvbench/kvbench/rdmakv/tcp"
	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

func coreServer(t testing.TB, mod func(*ServerConfig)) (*Server, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	cfg := ServerConfig{
		Listen: "127.0.0.1:0", Transport: "tcp", PoolSize: 16 << 20, MaxValue: 4 << 20,
		Lease: 2 * time.Second, Logger: slog.New(slog.NewTextHandler(logs, nil)),
		NetConn: *netConnFlag,
	}
	if mod != nil {
		mod(&cfg)
	}
	s, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, logs
}

func coreDial(t testing.TB, s *Server, opts ...Option) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, s.Addr(), append([]Option{WithTransport("tcp"), WithStagingSize(8 << 20), WithBlockingSocket(*blockingFlag), WithNetConn(*netConnFlag)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// coreRoundTrip sets key to val, gets it back and checks the bytes; it
// returns the protocol the get came by.
func coreRoundTrip(t testing.TB, ctx context.Context, c *Client, key, val []byte) Protocol {
	t.Helper()
	if err := c.Set(ctx, key, val); err != nil {
		t.Fatalf("set %d bytes: %v", len(val), err)
	}
	v, err := c.Get(ctx, key)
	if err != nil {
		t.Fatalf("get %d bytes: %v", len(val), err)
	}
	defer v.Release()
	if !bytes.Equal(v.Bytes(), val) {
		t.Fatalf("%d bytes via %v: read back differ", len(val), v.Protocol())
	}
	return v.Protocol()
}

func coreFill(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7)
	}
	return b
}

func TestSetGetBothProtocols(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s, WithEagerThreshold(4096))
	ctx := context.Background()
	for i, n := range []int{0, 1, 100, 4090, 4096, 5000, 1 << 20, 9 << 20 / 4} {
		key := []byte(fmt.Sprintf("k%d", i))
		val := coreFill(n, byte(i))
		if err := c.Set(ctx, key, val); err != nil {
			t.Fatalf("Set %d bytes: %v", n, err)
		}
		v, err := c.Get(ctx, key)
		if err != nil {
			t.Fatalf("Get %d bytes: %v", n, err)
		}
		want := c.ProtocolFor(len(key), n)
		if !bytes.Equal(v.Bytes(), val) || v.Protocol() != want {
			t.Fatalf("%d bytes: got %d bytes via %v, want via %v", n, len(v.Bytes()), v.Protocol(), want)
		}
		v.Release()
		v.Release()
	}
	if err := c.Delete(ctx, []byte("k1")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, []byte("k1")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
	if err := c.Delete(ctx, []byte("k1")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Delete: %v", err)
	}
}

// TestOverwriteWhileReading holds a rendezvous read of the old value across
// an overwrite and a delete: the old bytes stay intact in the held Value,
// and the pool gets the old block back once the lease is released.
func TestOverwriteWhileReading(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s, WithEagerThreshold(0))
	ctx := context.Background()
	old, neu := coreFill(100000, 1), coreFill(100000, 2)
	if err := c.Set(ctx, []byte("k"), old); err != nil {
		t.Fatal(err)
	}
	v, err := c.Get(ctx, []byte("k"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, []byte("k"), neu); err != nil {
		t.Fatal(err)
	}
	w, err := c.Get(ctx, []byte("k"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(v.Bytes(), old) || !bytes.Equal(w.Bytes(), neu) {
		t.Fatal("overwrite changed a value already read, or the new value is wrong")
	}
	v.Release()
	w.Release()
	if err := c.Delete(ctx, []byte("k")); err != nil {
		t.Fatal(err)
	}
	if used := s.store.alloc.Used(); used != 0 {
		t.Fatalf("pool holds %d bytes after delete and releases", used)
	}
}

func TestThresholdAboveMaxEagerRefused(t *testing.T) {
	s, _ := coreServer(t, func(c *ServerConfig) { c.MaxEager = 8192 })
	_, err := Dial(context.Background(), s.Addr(), WithTransport("tcp"), WithEagerThreshold(8193))
	if !errors.Is(err, ErrThreshold) {
		t.Fatalf("Dial with threshold above max eager: %v, want ErrThreshold", err)
	}
	c := coreDial(t, s, WithEagerThreshold(8192))
	if l := c.Limits(); l.MaxEager != 8192 || l.PoolSize != 16<<20 || l.MaxValue != 4<<20 {
		t.Fatalf("limits %+v", l)
	}
}

func TestLimitsErrors(t *testing.T) {
	s, _ := coreServer(t, func(c *ServerConfig) { c.MaxKey = 16; c.MaxValue = 1 << 20; c.PoolSize = 2 << 20 })
	c := coreDial(t, s)
	ctx := context.Background()
	if err := c.Set(ctx, make([]byte, 17), nil); !errors.Is(err, ErrKeyTooLong) {
		t.Fatalf("long key: %v", err)
	}
	if err := c.Set(ctx, []byte("k"), make([]byte, 1<<20+1)); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("large value: %v", err)
	}
	var err error
	for i := 0; i < 10 && err == nil; i++ {
		err = c.Set(ctx, []byte{byte(i)}, make([]byte, 1<<20))
	}
	if !errors.Is(err, ErrNoSpace) {
		t.Fatalf("filling a 2 MiB pool with 1 MiB values: %v, want ErrNoSpace", err)
	}
	if err := c.Delete(ctx, []byte{0}); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, []byte("small"), []byte("works again")); err != nil {
		t.Fatalf("eager set after NO_SPACE and a delete: %v", err)
	}
}

// TestMisbehavingClientDropped sends garbage on a raw connection: that
// connection alone is closed, with one log line naming the fault.
func TestMisbehavingClientDropped(t *testing.T) {
	s, logs := coreServer(t, nil)
	good := coreDial(t, s)
	ctx := context.Background()
	if err := good.Set(ctx, []byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	n, err := transport.Lookup("tcp")
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan error, 1)
	h := coreRawHandler{closed: closed}
	conn, err := n.Dial(ctx, s.Addr(), transport.Config{MaxMessage: 4096, RecvDepth: 4, SendDepth: 4}, h)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var hb [wire.MaxHeaderSize]byte
	hn := (&wire.Header{Type: wire.Get, KeyLen: 1}).Encode(hb[:])
	hb[0] = 'X'
	if err := conn.Send(hb[:hn], []byte("k"), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("server kept a connection that sent a bad magic (hang guard)")
	}
	v, err := good.Get(ctx, []byte("k"))
	if err != nil || string(v.Bytes()) != "v" {
		t.Fatalf("good client after the fault: %v", err)
	}
	v.Release()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "bad magic") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := strings.Count(logs.String(), "dropping connection"); got != 1 || !strings.Contains(logs.String(), "bad magic") {
		t.Fatalf("want one log line naming the bad magic, got:\n%s", logs.String())
	}
}

type coreRawHandler struct{ closed chan error }

func (h coreRawHandler) Deliver(_ transport.Conn, m *transport.Message) { m.Release() }
func (h coreRawHandler) Closed(_ transport.Conn, err error) {
	select {
	case h.closed <- err:
	default:
	}
}

func TestConcurrentClients(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s, WithDepth(8))
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				key := []byte(fmt.Sprintf("g%d-%d", g, i%5))
				val := coreFill(1+(g*977+i*131)%20000, byte(g))
				if err := c.Set(ctx, key, val); err != nil {
					errs <- err
					return
				}
				v, err := c.Get(ctx, key)
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(v.Bytes(), val) {
					errs <- fmt.Errorf("goroutine %d read a wrong value for %s", g, key)
				}
				v.Release()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestCloseIdempotent(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s)
	ctx := context.Background()
	if err := c.Set(ctx, []byte("k"), coreFill(10000, 3)); err != nil {
		t.Fatal(err)
	}
	v, err := c.Get(ctx, []byte("k"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(v.Bytes(), coreFill(10000, 3)) {
		t.Fatal("wrong value")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	v.Release() // a Value outliving its client releases harmlessly
	v.Release()
	if err := c.Set(ctx, []byte("k"), []byte("v")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Set after Close: %v", err)
	}
	if _, err := c.Get(ctx, []byte("k")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Get after Close: %v", err)
	}
}

func TestServerConfigValidate(t *testing.T) {
	err := ServerConfig{Transport: "carrier-pigeon", PoolSize: 100, MaxKey: 70000, Lease: -1, BusyIdle: -1,
		Listen: ":1", Local: true, HandshakeTimeout: -1, StallTimeout: -1, MaxConns: -1, MaxHandshakes: -1, TOS: 256}.Validate()
	for _, want := range []string{"transport", "pool size", "max key", "lease", "busy idle", `listen ":1" and local`,
		"handshake timeout -1ns", "stall timeout -1ns", "max conns -1", "max handshakes -1", "tos 256"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate error %v does not mention %s", err, want)
		}
	}
	if err := (ServerConfig{Receives: ReceivesShared}).Validate(); err == nil || !strings.Contains(err.Error(), "shared needs transport verbs") {
		t.Errorf("shared receives over tcp: %v", err)
	}
	if err := (ServerConfig{}).Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
	if err := (ServerConfig{Local: true}).Validate(); err != nil {
		t.Errorf("local: %v", err)
	}
	if err := (ServerConfig{MaxValue: 1 << 20, MaxGrantBytes: 1 << 19}).Validate(); err == nil || !strings.Contains(err.Error(), "max grant bytes 524288") {
		t.Errorf("a grant share below the max value: %v", err)
	}
	if err := (ServerConfig{BusyIdle: time.Millisecond}).Validate(); err == nil || !strings.Contains(err.Error(), "busy polling") {
		t.Errorf("BusyIdle with event polling: %v", err)
	}
	if err := (ServerConfig{BusyIdle: time.Millisecond, Poll: transport.PollBusy}).Validate(); err != nil {
		t.Errorf("BusyIdle with busy polling: %v", err)
	}
}
