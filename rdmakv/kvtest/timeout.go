package kvtest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// stuckServer completes the handshake and, depending on grant, answers
// SET_RDV_REQ with a grant; it answers nothing else. It is a server that
// stopped responding halfway.
type stuckServer struct {
	ln     transport.Listener
	region transport.Region
	hello  bool // answer HELLO at all
	grant  bool
	mu     sync.Mutex
	conns  []transport.Conn
}

type stuckConn struct{ s *stuckServer }

func (h stuckConn) Deliver(c transport.Conn, m *transport.Message) {
	f, err := wire.Decode(m.Data)
	var reply []byte
	if err == nil {
		switch {
		case f.Type == wire.Hello && h.s.hello:
			reply = wire.AppendFrame(nil, wire.Header{Type: wire.HelloReply, ReqID: f.ReqID, Credit: 1 << 30}, nil, fakeLimits(1000))
		case f.Type == wire.SetRdvReq && h.s.grant:
			rkey, gerr := c.Grant(h.s.region, 0, int(f.Length), transport.AccessRemoteWrite)
			if gerr == nil {
				reply = wire.AppendFrame(nil, wire.Header{Type: wire.SetRdvGrant, ReqID: f.ReqID, Addr: h.s.region.Addr(),
					RKey: rkey, Length: f.Length, Token: 7, Aux: 1000}, nil, nil)
			}
		}
	}
	m.Release()
	if reply != nil {
		go c.Send(reply, nil, nil) // not on the delivery path
	}
}

func (stuckConn) Closed(transport.Conn, error) {}

func startStuck(t *testing.T, env Env, hello, grant bool) *stuckServer {
	t.Helper()
	s := &stuckServer{hello: hello, grant: grant}
	s.ln, s.region = listenFake(t, env, func(c transport.Conn) transport.Handler {
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		return stuckConn{s}
	})
	return s
}

// testTimeout runs operations against servers that stop answering. Each
// must fail with ErrTimeout; the bound is the client's own timeout, the
// surrounding guard only catches a hang.
func testTimeout(t *testing.T, env Env) {
	const opTimeout = 200 * time.Millisecond
	t.Run("silent-after-hello", func(t *testing.T) {
		s := startStuck(t, env, true, false)
		const depth = 4
		c := dial(t, env, s.ln.Addr(), rdmakv.WithTimeout(opTimeout), rdmakv.WithDepth(depth))
		ctx := context.Background() // only the client's timeout bounds these
		if err := c.Set(ctx, []byte("k"), []byte("v")); !errors.Is(err, rdmakv.ErrTimeout) {
			t.Errorf("eager Set against a silent server: %v, want ErrTimeout", err)
		}
		if err := c.Set(ctx, []byte("k"), make([]byte, 20000)); !errors.Is(err, rdmakv.ErrTimeout) {
			t.Errorf("rendezvous Set against a silent server: %v, want ErrTimeout", err)
		}
		if v, err := c.Get(ctx, []byte("k")); !errors.Is(err, rdmakv.ErrTimeout) {
			if err == nil {
				v.Release()
			}
			t.Errorf("Get against a silent server: %v, want ErrTimeout", err)
		}
		if err := c.Delete(ctx, []byte("k")); !errors.Is(err, rdmakv.ErrTimeout) {
			t.Errorf("Delete against a silent server: %v, want ErrTimeout", err)
		}
		// More timed-out requests than the depth must not wedge the client:
		// timed-out slots are reusable.
		for i := range depth + 2 {
			if err := c.Delete(ctx, []byte("k")); !errors.Is(err, rdmakv.ErrTimeout) {
				t.Fatalf("Delete #%d against a silent server: %v, want ErrTimeout", i, err)
			}
		}
		if err := c.Close(); err != nil {
			t.Errorf("Close after timeouts: %v", err)
		}
	})
	t.Run("silent-after-grant", func(t *testing.T) {
		s := startStuck(t, env, true, true)
		c := dial(t, env, s.ln.Addr(), rdmakv.WithTimeout(opTimeout))
		if err := c.Set(context.Background(), []byte("k"), pattern(20000, 1)); !errors.Is(err, rdmakv.ErrTimeout) {
			t.Errorf("rendezvous Set whose commit is never answered: %v, want ErrTimeout", err)
		}
	})
	t.Run("context-deadline", func(t *testing.T) {
		s := startStuck(t, env, true, false)
		c := dial(t, env, s.ln.Addr(), rdmakv.WithTimeout(time.Minute))
		ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
		defer cancel()
		err := c.Set(ctx, []byte("k"), []byte("v"))
		if err == nil {
			t.Fatalf("Set against a silent server with a context deadline succeeded")
		}
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, rdmakv.ErrTimeout) {
			t.Errorf("Set against a silent server, context deadline: %v, want context.DeadlineExceeded or ErrTimeout", err)
		}
	})
	t.Run("no-hello-reply", func(t *testing.T) {
		s := startStuck(t, env, false, false)
		c, err := dialErr(env, s.ln.Addr(), rdmakv.WithTimeout(opTimeout))
		if err == nil {
			c.Close()
			t.Fatalf("Dial to a server that never answers HELLO succeeded")
		}
		if !errors.Is(err, rdmakv.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Dial to a server that never answers HELLO: %v, want ErrTimeout", err)
		}
	})
}
