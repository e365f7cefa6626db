package kvtest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// holPeer is the head-of-line case's stuck peer: a raw client that stops
// taking its replies, keeping every receive buffer the transport hands it
// so that the server's sends to it stall (RNR on verbs, a full socket on
// TCP), and that can take them again (on Close, so that its transport
// can tear down).
type holPeer struct {
	conn   transport.Conn
	closed chan struct{}
	once   sync.Once
	err    error // why the connection closed; set before closed is closed

	mu      sync.Mutex
	holding bool
	held    []*transport.Message
	want    uint32           // the request whose reply goes to answer
	answer  chan wire.Header // capacity 1

	// asked counts the GETs that floods have sent.
	asked atomic.Int64
	// released is the last lease token a flood released; one flood runs
	// at a time.
	released uint32
}

func (p *holPeer) Deliver(_ transport.Conn, m *transport.Message) {
	p.mu.Lock()
	if p.holding {
		p.held = append(p.held, m) // the receive queue runs dry
		p.mu.Unlock()
		return
	}
	want := p.want
	p.mu.Unlock()
	f, err := wire.Decode(m.Data)
	m.Release()
	if err == nil && f.ReqID == want {
		select {
		case p.answer <- f.Header:
		default:
		}
	}
}

func (p *holPeer) Closed(_ transport.Conn, err error) {
	p.once.Do(func() {
		p.err = err
		close(p.closed)
	})
}

// dialHolPeer connects over env's transport with holHeld receive buffers
// sized for maxEager and says HELLO with threshold maxEager.
func dialHolPeer(t *testing.T, env Env, addr string, maxEager int) *holPeer {
	t.Helper()
	p := &holPeer{closed: make(chan struct{}), answer: make(chan wire.Header, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cfg := transport.Config{MaxMessage: wire.MaxHeaderSize + maxEager + wire.MaxKeyLen,
		RecvDepth: holHeld, SendDepth: 16, OpTimeout: 10 * time.Second, NetConn: env.NetConn}
	var err error
	if p.conn, err = lookup(t, env).Dial(ctx, addr, cfg, p); err != nil {
		t.Fatalf("stuck peer: %s dial %s: %v", env.Transport, addr, err)
	}
	t.Cleanup(func() {
		p.conn.Close()
		p.unhold()
	})
	a, err := p.ask(t, wire.Header{Type: wire.Hello, ReqID: 1}, nil, rawHelloBody(maxEager, uint32(maxEager)))
	if err != nil || a.Type != wire.HelloReply || a.Status != wire.OK {
		t.Fatalf("stuck peer: HELLO answered %s %s (%v)", a.Type, a.Status, err)
	}
	return p
}

// hold makes p keep every message from now on.
func (p *holPeer) hold() {
	p.mu.Lock()
	p.holding = true
	p.mu.Unlock()
}

// unhold makes p take its messages again and frees those it kept.
func (p *holPeer) unhold() {
	p.mu.Lock()
	p.holding = false
	held := p.held
	p.held = nil
	p.mu.Unlock()
	for _, m := range held {
		m.Release()
	}
}

func (p *holPeer) send(h wire.Header, key, value []byte) error {
	h.KeyLen, h.ValueLen = uint16(len(key)), uint32(len(value))
	var hb [wire.MaxHeaderSize]byte
	n := h.Encode(hb[:])
	return p.conn.Send(hb[:n], key, value)
}

// ask sends a request and waits for the reply that carries its ReqID; it
// fails if the connection closes first. p must not be holding.
func (p *holPeer) ask(t *testing.T, h wire.Header, key, value []byte) (wire.Header, error) {
	t.Helper()
	p.mu.Lock()
	p.want = h.ReqID
	p.mu.Unlock()
	if err := p.send(h, key, value); err != nil {
		return wire.Header{}, err
	}
	select {
	case a := <-p.answer:
		return a, nil
	case <-p.closed:
		select {
		case a := <-p.answer: // the reply came before the close
			return a, nil
		default:
		}
		return wire.Header{}, fmt.Errorf("connection closed: %v", p.err)
	case <-time.After(20 * time.Second):
		t.Fatalf("stuck peer: no reply to %s (req id %d) within 20s (hang guard)", h.Type, h.ReqID)
	}
	panic("unreachable")
}

func (p *holPeer) isClosed() bool {
	select {
	case <-p.closed:
		return true
	default:
		return false
	}
}

// waitClosed waits up to d (a hang guard) for the server to drop p.
func (p *holPeer) waitClosed(d time.Duration) error {
	select {
	case <-p.closed:
		return nil
	case <-time.After(d):
		return fmt.Errorf("server kept the connection open for %v", d)
	}
}

// request is a flood's request j: a GET of key answered inline (aux is
// p's threshold) or, with rdv, for j%3 of 1 a GET by rendezvous
// (threshold 1), which opens a window, and for j%3 of 2 the release of
// the lease token the server issued for it (1, 2, ... on a connection
// that asks for nothing else by rendezvous), which leaves the window for
// the server to close.
func (p *holPeer) request(j int, key []byte, aux uint32, rdv bool) (wire.Header, []byte) {
	switch {
	case rdv && j%3 == 1:
		return wire.Header{Type: wire.Get, Aux: 1}, key
	case rdv && j%3 == 2:
		p.released++
		return wire.Header{Type: wire.GetRelease, Token: p.released}, nil
	}
	return wire.Header{Type: wire.Get, Aux: aux}, key
}

// flood sends n requests on a goroutine of its own, as fast as they go
// out, counting its GETs in asked. Unpaced, it fills what a transport
// buffers for p quickly, however much an earlier drain let that grow
// (TCP's autotuned receive buffer). With windows, requests holHeld to
// holHeld+3*holWindows open and release windows: the server does so
// behind the holHeld replies p takes, which on verbs queues the binds and
// invalidations behind replies p does not take. With trickle it then
// sends one more request every holTrickle until a send fails: on TCP only
// a failed send tells a peer that takes nothing that it was dropped (its
// reader waits for a free buffer). The channel closes when it is done.
func (p *holPeer) flood(n int, key []byte, aux uint32, windows, trickle bool) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < n || trickle; i++ {
			j := i - holHeld
			h, k := p.request(j, key, aux, windows && j >= 0 && j < 3*holWindows)
			h.ReqID = 1000 + uint32(i)
			if p.send(h, k, nil) != nil {
				return
			}
			if h.Type == wire.Get {
				p.asked.Add(1)
			}
			if i >= n {
				time.Sleep(holTrickle)
			}
		}
	}()
	return done
}
