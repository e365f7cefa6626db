package kvtest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// heldServer answers gets for keys starting "held-" only once release is
// closed, everything else at once, and counts what it receives.
type heldServer struct {
	mu      sync.Mutex
	held    int             // held gets received
	keys    map[string]bool // every key a get named
	release chan struct{}
}

func (s *heldServer) Deliver(c transport.Conn, m *transport.Message) {
	f, err := wire.Decode(m.Data)
	m.Release()
	if err != nil {
		return
	}
	after := now
	hd := wire.Header{Type: wire.GetReplyInline, ReqID: f.ReqID}
	switch f.Type {
	case wire.Hello:
		hd = wire.Header{Type: wire.HelloReply, Credit: 1 << 30, ReqID: f.ReqID}
	case wire.Get:
		key := string(f.Key)
		s.mu.Lock()
		s.keys[key] = true
		if strings.HasPrefix(key, "held-") {
			s.held++
			after = s.release
		}
		s.mu.Unlock()
	default:
		return
	}
	body := []byte("v")
	if f.Type == wire.Hello {
		body = fakeLimits(5000)
	}
	b := wire.AppendFrame(nil, hd, nil, body)
	go func() {
		<-after
		c.Send(b, nil, nil)
	}()
}

func (*heldServer) Closed(transport.Conn, error) {}

func (s *heldServer) count() (held int, keys map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held, s.keys
}

// testLateFlood: a server that stops answering for longer than the
// client's timeout gets no more requests than the client has receive
// buffers for their replies. Once four replies to requests given up are
// still to come, a new request waits for them and, when they do not
// come, times out unsent; so however many requests time out, no late
// reply finds the client's receive queue empty (on verbs, an RNR NAK).
// When the late replies land, the connection works again.
func testLateFlood(t *testing.T, env Env) {
	s := &heldServer{keys: map[string]bool{}, release: make(chan struct{})}
	ln, _ := listenFake(t, env, func(transport.Conn) transport.Handler { return s })
	c := dial(t, env, ln.Addr(), rdmakv.WithTimeout(time.Minute), rdmakv.WithDepth(8))
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	get := func(ctx context.Context, key string) error {
		v, err := c.Get(ctx, []byte(key))
		if err == nil {
			v.Release()
		}
		return err
	}
	// A try whose context ran out before it went out sends nothing, so
	// keep trying until the server holds four.
	for try := 0; ; try++ {
		if held, _ := s.count(); held == 4 {
			break
		} else if try == 40 {
			t.Fatalf("after %d gets with a 100ms deadline the server holds %d, want 4", try, held)
		}
		if err := get(short(), "held-"+itoa(try)); !errors.Is(err, rdmakv.ErrTimeout) {
			t.Fatalf("a get the server holds, 100ms deadline: %v, want ErrTimeout", err)
		}
	}
	if err := get(short(), "next"); !errors.Is(err, rdmakv.ErrTimeout) {
		t.Fatalf("a get behind four replies still to come: %v, want ErrTimeout", err)
	}
	close(s.release)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The server reads a connection's messages in order: once "after" is
	// answered, it has seen "next" if the client sent it.
	if err := get(ctx, "after"); err != nil {
		t.Fatalf("a get once the late replies landed: %v, want it answered", err)
	}
	if _, keys := s.count(); keys["next"] {
		t.Errorf("the client sent a get while four replies to requests it gave up were still to come: it has receive buffers for only four")
	}
}
