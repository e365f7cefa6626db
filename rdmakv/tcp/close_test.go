package tcp

import (
	"context"
	"errors"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

func TestCloseIdempotent(t *testing.T) {
	p := newPair(t, smallCfg())
	local, remote := p.regions(t, 4096, transport.AccessRemoteWrite|transport.AccessRemoteRead)
	if err := p.cli.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.cli.Close(); err != nil {
		t.Fatalf("second close: %v", err)
	}
	if err := <-p.crec.closed; err != nil {
		t.Fatalf("orderly local close reported %v", err)
	}
	wantErr(t, p.srec.waitClosed(t), transport.ErrClosed) // peer closed
	if n := p.crec.nClosed.Load(); n != 1 {
		t.Fatalf("Closed called %d times", n)
	}
	wantErr(t, p.cli.Send([]byte("x"), nil, nil), transport.ErrClosed)
	wantErr(t, p.cli.Write(local, 0, 1, remote.Addr(), remote.RKey()), transport.ErrClosed)
	wantErr(t, p.cli.WriteImm(local, 0, 1, remote.Addr(), remote.RKey(), 1), transport.ErrClosed)
	wantErr(t, p.cli.Read(local, 0, 1, remote.Addr(), remote.RKey()), transport.ErrClosed)
	_, err := p.cli.Register(10, transport.AccessLocal)
	wantErr(t, err, transport.ErrClosed)
	_, err = p.cli.Grant(local, 0, 1, transport.AccessRemoteRead)
	wantErr(t, err, transport.ErrClosed)
	if p.cli.Info().Transport != "tcp" || p.cli.LocalAddr() == "" || p.cli.RemoteAddr() == "" {
		t.Fatalf("info %+v local %q remote %q", p.cli.Info(), p.cli.LocalAddr(), p.cli.RemoteAddr())
	}
	// Closing the client freed its own regions; closing again is harmless.
	if err := local.Close(); err != nil {
		t.Fatal(err)
	}
}

// A held Message stays readable after its connection closed; the receive
// memory goes when it is released.
func TestHeldMessageOutlivesClose(t *testing.T) {
	p := newPair(t, smallCfg())
	if err := p.cli.Send([]byte("still here"), nil, nil); err != nil {
		t.Fatal(err)
	}
	m := p.srec.next(t)
	_ = p.sc.Close()
	_ = p.srec.waitClosed(t)
	if string(m.Data) != "still here" {
		t.Fatalf("held message reads %q", m.Data)
	}
	m.Release()
}

func TestCloseFailsOpsInFlight(t *testing.T) {
	// A peer that takes requests and never answers.
	c, rec, nc := dialRawPeer(t, smallCfg())
	local := register(t, c, 1<<16, transport.AccessLocal)
	errc := make(chan error, 3)
	go func() { errc <- c.Read(local, 0, 100, 0x1000, 1) }()
	go func() { errc <- c.Write(local, 0, 100, 0x1000, 1) }()
	go func() { errc <- c.WriteImm(local, 0, 100, 0x1000, 1, 1) }()
	// Wait until all three requests are on the wire.
	for range 3 {
		h := readFrameHeader(t, nc)
		if h.hasPayload() {
			_, _ = io.CopyN(io.Discard, nc, int64(h.len))
		}
	}
	_ = c.Close()
	for range 3 {
		wantErr(t, await(t, errc, "op in flight did not fail on Close"), transport.ErrClosed)
	}
	if err := rec.waitClosed(t); err != nil {
		t.Fatalf("local close reported %v", err)
	}
}

func TestPeerKilledMidRead(t *testing.T) {
	c, rec, nc := dialRawPeer(t, smallCfg())
	local := register(t, c, 1<<20, transport.AccessLocal)
	errc := make(chan error, 1)
	go func() { errc <- c.Read(local, 0, 1<<20, 0x1000, 1) }()
	h := readFrameHeader(t, nc)
	if h.op != opReadReq || h.len != 1<<20 {
		t.Fatalf("got %s len %d", opName(h.op), h.len)
	}
	// Half the answer, then the peer is gone.
	resp := encodeFrame(header{op: opReadResp, wrid: h.wrid, len: h.len}, make([]byte, 1000))
	if _, err := nc.Write(resp); err != nil {
		t.Fatal(err)
	}
	_ = nc.Close()
	wantErr(t, await(t, errc, "Read hung after the peer died"), transport.ErrClosed)
	if err := rec.waitClosed(t); err == nil {
		t.Fatal("Closed got nil for a vanished peer")
	}
}

func TestPeerGoneBeforeAnswer(t *testing.T) {
	c, _, nc := dialRawPeer(t, smallCfg())
	local := register(t, c, 4096, transport.AccessLocal)
	errc := make(chan error, 1)
	go func() { errc <- c.Write(local, 0, 4096, 0x1000, 1) }()
	readFrameHeader(t, nc)
	_ = nc.Close()
	if err := await(t, errc, "Write hung after the peer died"); err == nil {
		t.Fatal("Write succeeded with no WRITE_ACK")
	}
}

func TestOpTimeout(t *testing.T) {
	cfg := smallCfg()
	cfg.OpTimeout = 200 * time.Millisecond
	c, rec, nc := dialRawPeer(t, cfg)
	local := register(t, c, 4096, transport.AccessLocal)
	errc := make(chan error, 1)
	go func() { errc <- c.Read(local, 0, 64, 0x1000, 1) }()
	readFrameHeader(t, nc) // and never answer
	wantErr(t, await(t, errc, "OpTimeout did not fire"), transport.ErrTimeout)
	wantErr(t, rec.waitClosed(t), transport.ErrTimeout)
	wantErr(t, c.Send(nil, nil, nil), transport.ErrClosed)
}

func TestDialHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ln := rawListen(t)
	_, err := network{}.Dial(ctx, ln.Addr().String(), withMode(smallCfg()), newRecorder())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("dial with cancelled context: %v", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	_, err = network{}.Dial(ctx, ln.Addr().String(), withMode(smallCfg()), newRecorder())
	if err == nil {
		t.Fatal("dial with expired deadline succeeded")
	}
}

func TestConfigChecked(t *testing.T) {
	bad := []transport.Config{
		{MaxMessage: -1},
		{RecvDepth: -1},
		{SendDepth: MaxDepth + 1},
		{MaxMessage: transport.MaxMessageLimit + 1},
		{OpTimeout: -time.Second},
		{BusyIdle: -time.Second},
		{Poll: 9},
	}
	for _, cfg := range bad {
		if _, err := (network{}).Listen("127.0.0.1:0", withMode(cfg), func(transport.Conn) transport.Handler { return nil }); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	_, err := checkConfig(transport.Config{MaxMessage: -1, RecvDepth: -1})
	if err == nil || len(err.(interface{ Unwrap() []error }).Unwrap()) != 2 {
		t.Fatalf("want both faults reported, got %v", err)
	}
	if _, err := (network{}).Dial(context.Background(), "127.0.0.1:1", smallCfg(), nil); err == nil {
		t.Error("nil handler accepted")
	}
	n, err := transport.Lookup("tcp")
	if err != nil || n.Name() != "tcp" {
		t.Fatalf("registry: %v %v", n, err)
	}
}

func TestListenerCloseClosesConns(t *testing.T) {
	srv := listen(t, smallCfg())
	var recs []*recorder
	for range 3 {
		recs = append(recs, srv.pair(t, smallCfg()).srec)
	}
	if err := srv.ln.Close(); err != nil {
		t.Fatal(err)
	}
	if err := srv.ln.Close(); err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := r.waitClosed(t); err != nil {
			t.Fatalf("listener close reported %v", err)
		}
	}
	_, err := srv.ln.Register(10, transport.AccessLocal)
	wantErr(t, err, transport.ErrClosed)
}

// closer closes its connection from inside its own callbacks.
type closer struct{ closed chan error }

func (h closer) Deliver(c transport.Conn, m *transport.Message) {
	m.Release()
	_ = c.Close()
}
func (h closer) Closed(c transport.Conn, err error) {
	_ = c.Close()
	h.closed <- err
}

func TestCloseFromCallbacks(t *testing.T) {
	h := closer{closed: make(chan error, 2)}
	refused := make(chan struct{}, 1)
	n := 0
	ln, err := network{}.Listen("127.0.0.1:0", withMode(smallCfg()), func(c transport.Conn) transport.Handler {
		n++
		if n == 1 {
			_ = c.Close() // from AcceptFunc
			refused <- struct{}{}
			return h
		}
		return h
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c1, r1 := dial(t, ln.Addr(), smallCfg())
	<-refused
	if err := <-h.closed; err != nil {
		t.Fatalf("close from AcceptFunc reported %v", err)
	}
	wantErr(t, r1.waitClosed(t), transport.ErrClosed)
	_ = c1
	c2, r2 := dial(t, ln.Addr(), smallCfg())
	if err := c2.Send([]byte("bye"), nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-h.closed; err != nil {
		t.Fatalf("close from Deliver reported %v", err)
	}
	wantErr(t, r2.waitClosed(t), transport.ErrClosed)
}

func TestAcceptRefused(t *testing.T) {
	ln, err := network{}.Listen("127.0.0.1:0", withMode(smallCfg()), func(transport.Conn) transport.Handler { return nil })
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// The refusal is a reset, which may come before the connect returns.
	rec := newRecorder()
	c, err := network{}.Dial(context.Background(), ln.Addr(), withMode(smallCfg()), rec)
	if err != nil {
		wantErr(t, err, syscall.ECONNRESET)
		return
	}
	defer c.Close()
	wantErr(t, rec.waitClosed(t), transport.ErrClosed)
}
