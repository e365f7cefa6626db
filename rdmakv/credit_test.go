package rdmakv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// sharedNet is tcp with a listener whose connections share its receives,
// as verbs' SRQ, which grow a RecvDepth at a time: it counts, over every
// connection, the messages clients have sent that take a server receive
// and that the server has not yet released, which is what a shared
// receive queue would need posted for none of them to meet RNR, and
// counts each send that finds the count above what is posted.
type sharedNet struct {
	transport.Network
	out, peak, posted, over *atomic.Int64
}

func newSharedNet(t *testing.T) sharedNet {
	tcp, err := transport.Lookup("tcp")
	if err != nil {
		t.Fatal(err)
	}
	n := sharedNet{tcp, new(atomic.Int64), new(atomic.Int64), new(atomic.Int64), new(atomic.Int64)}
	transport.RegisterNetwork(n)
	t.Cleanup(func() { transport.RegisterNetwork(tcp) })
	return n
}

func (n sharedNet) sent() {
	v := n.out.Add(1)
	if v > n.posted.Load() {
		n.over.Add(1)
	}
	for p := n.peak.Load(); v > p && !n.peak.CompareAndSwap(p, v); p = n.peak.Load() {
	}
}

func (n sharedNet) Listen(addr string, cfg transport.Config, accept transport.AcceptFunc) (transport.Listener, error) {
	ln, err := n.Network.Listen(addr, cfg, func(c transport.Conn) transport.Handler {
		return relayHandler{accept(c), n.out}
	})
	if err != nil {
		return nil, err
	}
	n.posted.Store(int64(cfg.RecvDepth))
	return sharedListener{ln, n, cfg.RecvDepth, max(cfg.MaxRecvDepth, cfg.RecvDepth)}, nil
}

func (n sharedNet) Dial(ctx context.Context, addr string, cfg transport.Config, h transport.Handler) (transport.Conn, error) {
	c, err := n.Network.Dial(ctx, addr, cfg, h)
	if err != nil {
		return nil, err
	}
	return countingConn{c, n}, nil
}

type sharedListener struct {
	transport.Listener
	n           sharedNet
	step, limit int
}

func (l sharedListener) SharedRecvs() int    { return int(l.n.posted.Load()) }
func (l sharedListener) MaxSharedRecvs() int { return l.limit }

func (l sharedListener) GrowRecvs() (int, error) {
	if p := l.n.posted.Load(); p+int64(l.step) <= int64(l.limit) {
		return int(l.n.posted.Add(int64(l.step))), nil
	}
	return int(l.n.posted.Load()), errors.New("at its most")
}

// countingConn counts each message that takes a receive of the server's
// before it goes.
type countingConn struct {
	transport.Conn
	n sharedNet
}

func (c countingConn) Send(a, b, d []byte) error {
	c.n.sent()
	return c.Conn.Send(a, b, d)
}

func (c countingConn) WriteImm(local transport.Region, off, n int, raddr uint64, rkey, imm uint32) error {
	c.n.sent()
	return c.Conn.WriteImm(local, off, n, raddr, rkey, imm)
}

// relayHandler hands the server a copy of each message whose Release
// counts the receive back before releasing the original.
type relayHandler struct {
	transport.Handler
	out *atomic.Int64
}

type recvRelay struct {
	m   *transport.Message
	out *atomic.Int64
}

func (r recvRelay) ReleaseMessage(int) {
	r.out.Add(-1)
	r.m.Release()
}

func (h relayHandler) Deliver(c transport.Conn, m *transport.Message) {
	cp := new(transport.Message)
	*cp = *m
	cp.Bind(recvRelay{m, h.out}, 0)
	h.Handler.Deliver(c, cp)
}

// Clients that want four times the receives a server shares never send
// into a full queue: the server divides its receives by credit, the
// clients wait for it, and every value comes back whole.
func TestCreditSharedReceives(t *testing.T) {
	n := newSharedNet(t)
	const recvs = 16
	s, _ := coreServer(t, func(c *ServerConfig) { c.RecvDepth, c.MaxRecvs = recvs, recvs })
	if st := s.Stats(); st.RecvShared != recvs {
		t.Fatalf("RecvShared %d, want %d", st.RecvShared, recvs)
	}
	clients := creditLoad(t, s, 8, 60)
	if p := n.peak.Load(); p > recvs || n.over.Load() != 0 {
		t.Errorf("clients had %d messages in the server's %d shared receives at once (%d sends past them)", p, recvs, n.over.Load())
	}
	var waits uint64
	for _, c := range clients {
		waits += c.CreditWaits()
	}
	if waits == 0 {
		t.Error("no client ever waited for credit: the server's receives were not divided")
	}
	// Releases may still be on their way: the figures settle once the
	// server has taken every message.
	if held, _ := settledCredit(t, s); held > recvs {
		t.Errorf("connections hold %d receives, the pool has %d", held, recvs)
	}
	t.Logf("peak %d of %d receives, %d credit waits", n.peak.Load(), recvs, waits)
}

// A server whose shared receives are fewer than its clients want grows
// them, a RecvDepth at a time up to MaxRecvs, and no send ever finds
// more messages in flight than receives posted.
func TestCreditGrowsSharedReceives(t *testing.T) {
	n := newSharedNet(t)
	s, _ := coreServer(t, func(c *ServerConfig) { c.RecvDepth, c.MaxRecvs = 16, 160 })
	creditLoad(t, s, 16, 40)
	if o := n.over.Load(); o != 0 {
		t.Errorf("%d sends found more messages in flight than the %d receives posted", o, n.posted.Load())
	}
	// Four clients of depth 16 want 2 x 16 receives each.
	if got := s.Stats().RecvShared; got <= 16 || got > 160 {
		t.Errorf("shared receives %d after the load, want grown from 16 and at most 160", got)
	}
	if p := n.peak.Load(); p <= 16 {
		t.Errorf("at most %d messages in flight: the grown receives went unused", p)
	}
	settledCredit(t, s)
	t.Logf("grew to %d receives; peak %d in flight", s.Stats().RecvShared, n.peak.Load())
}

// creditLoad dials four clients of depth 16 to s and runs workers
// creditWorkloads of rounds on each, failing t for every error; it
// returns the clients.
func creditLoad(t *testing.T, s *Server, workers, rounds int) []*Client {
	t.Helper()
	clients := make([]*Client, 4)
	for i := range clients {
		clients[i] = coreDial(t, s, WithDepth(16), WithEagerThreshold(256), WithTimeout(20*time.Second))
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(clients)*workers)
	for ci, c := range clients {
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := creditWorkload(context.Background(), c, fmt.Sprintf("c%dw%d", ci, w), rounds); err != nil {
					errs <- err
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	return clients
}

// creditWorkload sets and reads back keys of sizes on both sides of the
// eager threshold, with deletes, as one worker.
func creditWorkload(ctx context.Context, c *Client, name string, rounds int) error {
	for i := range rounds {
		key := []byte(fmt.Sprintf("%s-%d", name, i%5))
		val := coreFill(1+(i*397)%3000, byte(i))
		if err := c.Set(ctx, key, val); err != nil {
			return fmt.Errorf("%s: set %d bytes: %w", name, len(val), err)
		}
		v, err := c.Get(ctx, key)
		if err != nil {
			return fmt.Errorf("%s: get: %w", name, err)
		}
		ok := bytes.Equal(v.Bytes(), val)
		v.Release()
		if !ok {
			return fmt.Errorf("%s: %s read back wrong", name, key)
		}
		if i%7 == 6 {
			if err := c.Delete(ctx, key); err != nil {
				return fmt.Errorf("%s: delete: %w", name, err)
			}
		}
	}
	return nil
}

// rawPeer is a client that speaks the protocol by hand, so it can stop
// anywhere.
type rawPeer struct {
	conn transport.Conn
	got  chan []byte
}

func (p *rawPeer) Deliver(_ transport.Conn, m *transport.Message) {
	p.got <- bytes.Clone(m.Data)
	m.Release()
}

func (p *rawPeer) Closed(transport.Conn, error) {}

func dialRaw(t *testing.T, s *Server) *rawPeer {
	t.Helper()
	nw, err := transport.Lookup("tcp")
	if err != nil {
		t.Fatal(err)
	}
	p := &rawPeer{got: make(chan []byte, 16)}
	cfg := transport.Config{MaxMessage: wire.MaxHeaderSize + 1024, RecvDepth: 16, SendDepth: 16}
	if p.conn, err = nw.Dial(context.Background(), s.Addr(), cfg, p); err != nil {
		t.Fatal(err)
	}
	if f := p.call(t, wire.Header{Type: wire.Hello}, nil); f.Type != wire.HelloReply || f.Status != wire.OK || f.Credit == 0 {
		t.Fatalf("HELLO answered %s %s with credit %d", f.Type, f.Status, f.Credit)
	}
	return p
}

// call sends h (a HELLO carries a default body) and returns the reply.
func (p *rawPeer) call(t *testing.T, h wire.Header, key []byte) wire.Frame {
	t.Helper()
	var body []byte
	if h.Type == wire.Hello {
		body = make([]byte, wire.HelloBodySize)
		(&wire.HelloBody{RecvSize: wire.MaxHeaderSize + 1024, Threshold: 64, Depth: 4}).Encode(body)
	}
	if err := p.conn.Send(wire.AppendFrame(nil, h, key, body), nil, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case b := <-p.got:
		f, err := wire.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		return f
	case <-time.After(10 * time.Second):
		t.Fatalf("no reply to %s (hang guard)", h.Type)
	}
	panic("unreachable")
}

// Clients that vanish in the middle of a rendezvous, holding a write
// grant or a read window, give back every receive they held: what the
// connections hold, counted one by one, stays what the pool says is
// promised, and is nothing once all are gone.
func TestCreditKilledMidRendezvous(t *testing.T) {
	newSharedNet(t)
	s, _ := coreServer(t, func(c *ServerConfig) { c.RecvDepth = 32 })
	c := coreDial(t, s, WithDepth(4), WithEagerThreshold(64))
	ctx := context.Background()
	if err := c.Set(ctx, []byte("big"), coreFill(1000, 1)); err != nil {
		t.Fatal(err)
	}
	whole := func(string) { settledCredit(t, s) }
	setter := dialRaw(t, s)
	if f := setter.call(t, wire.Header{Type: wire.SetRdvReq, ReqID: 1, Length: 1000}, []byte("k")); f.Type != wire.SetRdvGrant || f.Status != wire.OK {
		t.Fatalf("SET_RDV_REQ answered %s %s", f.Type, f.Status)
	}
	getter := dialRaw(t, s)
	if f := getter.call(t, wire.Header{Type: wire.Get, ReqID: 1, Aux: 64}, []byte("big")); f.Type != wire.GetReplyRdv || f.Status != wire.OK {
		t.Fatalf("GET answered %s %s", f.Type, f.Status)
	}
	whole("with a grant and a window open")
	setter.conn.Close()
	getter.conn.Close()
	deadline := time.Now().Add(10 * time.Second)
	for s.Stats().Conns > 1 {
		if time.Now().After(deadline) {
			t.Fatal("the server never noticed the clients go (hang guard)")
		}
		time.Sleep(5 * time.Millisecond)
	}
	whole("after two clients vanished")
	if st := s.Stats(); st.Grants != 0 || st.RecvHeld < 1 {
		t.Errorf("after the vanished clients: %d grants open, %d receives held by the one left", st.Grants, st.RecvHeld)
	}
	v, err := c.Get(ctx, []byte("big"))
	if err != nil {
		t.Fatal(err)
	}
	v.Release()
	c.Close()
	for s.Stats().Conns > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the server never noticed the last client go (hang guard)")
		}
		time.Sleep(5 * time.Millisecond)
	}
	whole("after every client left")
	if p := s.credit.promised.Load(); p != 0 {
		t.Errorf("%d receives still promised with no connection", p)
	}
}

// settledCredit waits for what the connections hold, counted one by one,
// to agree with what the pool says is promised (messages in flight move
// both, so a snapshot may catch one between them), and returns both.
func settledCredit(t *testing.T, s *Server) (held, promised int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		held, promised = s.Stats().RecvHeld, s.credit.promised.Load()
		if held == promised {
			return held, promised
		}
		if time.Now().After(deadline) {
			t.Fatalf("connections hold %d receives, the pool says %d promised (hang guard)", held, promised)
		}
		time.Sleep(time.Millisecond)
	}
}
