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

// lateServer answers some requests only once the test lets it, after the
// client's request has timed out, and everything else at once. It records
// what the client sends back about the late answers.
type lateServer struct {
	ln     transport.Listener
	region transport.Region
	mu     sync.Mutex
	fins   map[uint32]uint64 // SET_FIN token -> length
	rels   map[uint32]bool   // GET_RELEASE tokens
	seen   map[string]bool   // keys of the late requests received
	events chan struct{}     // poked on every record
	stale  chan struct{}     // closed once the late inline reply is sent
	// late holds each late reply until the test closes its key's channel.
	late map[string]chan struct{}
}

const (
	lateRdvTok = 77
	lateSetTok = 88
)

// now lets a reply go at once.
var now = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

type lateConn struct{ s *lateServer }

func (h lateConn) Deliver(c transport.Conn, m *transport.Message) {
	f, err := wire.Decode(m.Data)
	key := ""
	if err == nil {
		key = string(f.Key)
	}
	m.Release()
	if err != nil {
		return
	}
	s := h.s
	if strings.HasPrefix(key, "slow-") {
		s.mu.Lock()
		s.seen[key] = true
		s.mu.Unlock()
	}
	reply := func(after <-chan struct{}, hd wire.Header, value []byte) {
		hd.ReqID = f.ReqID
		b := wire.AppendFrame(nil, hd, nil, value)
		go func() {
			<-after
			c.Send(b, nil, nil)
		}()
	}
	switch f.Type {
	case wire.Hello:
		reply(now, wire.Header{Type: wire.HelloReply, Credit: 1 << 30}, fakeLimits(5000))
	case wire.Get:
		switch key {
		case "slow-inline":
			b := wire.AppendFrame(nil, wire.Header{Type: wire.GetReplyInline, ReqID: f.ReqID}, nil, []byte("STALE"))
			go func() {
				<-s.late[key]
				c.Send(b, nil, nil)
				close(s.stale)
			}()
		case "hold":
			// Answered only after the late reply, so the late reply
			// arrives while this request waits on the same slot.
			b := wire.AppendFrame(nil, wire.Header{Type: wire.GetReplyInline, ReqID: f.ReqID}, nil, []byte("fresh:hold"))
			go func() {
				<-s.stale
				c.Send(b, nil, nil)
			}()
		case "slow-rdv":
			rkey, _ := c.Grant(s.region, 0, 8192, transport.AccessRemoteRead)
			reply(s.late[key], wire.Header{Type: wire.GetReplyRdv, Addr: s.region.Addr(), RKey: rkey, Length: 8192,
				Token: lateRdvTok, Aux: 5000}, nil)
		default:
			reply(now, wire.Header{Type: wire.GetReplyInline}, []byte("fresh:"+key))
		}
	case wire.SetRdvReq:
		if key == "slow-grant" {
			rkey, _ := c.Grant(s.region, 0, int(f.Length), transport.AccessRemoteWrite)
			reply(s.late[key], wire.Header{Type: wire.SetRdvGrant, Addr: s.region.Addr(), RKey: rkey, Length: f.Length,
				Token: lateSetTok, Aux: 5000}, nil)
		}
	case wire.GetRelease:
		s.record(func() { s.rels[f.Token] = true })
	case wire.SetFin:
		s.record(func() { s.fins[f.Token] = f.Length })
	}
}

func (lateConn) Closed(transport.Conn, error) {}

func (s *lateServer) record(fn func()) {
	s.mu.Lock()
	fn()
	s.mu.Unlock()
	select {
	case s.events <- struct{}{}:
	default:
	}
}

// saw reports whether the server has received a request for key.
func (s *lateServer) saw(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[key]
}

func (s *lateServer) finLen(tok uint32) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fins[tok]
}

// waitFor polls cond on every record, bounded by a hang guard.
func (s *lateServer) waitFor(cond func() bool) bool {
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		ok := cond()
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-s.events:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			return false
		}
	}
}

// testLateReplies times requests out and lets their replies arrive later.
// A late reply must never be taken for the answer to a later request on the
// same request slot, the client must hand back what a late reply pinned
// (GET_RELEASE for a read window, a cancelling SET_FIN for a write grant),
// and the connection must stay usable, as WithTimeout documents.
func testLateReplies(t *testing.T, env Env) {
	s := &lateServer{fins: map[uint32]uint64{}, rels: map[uint32]bool{}, seen: map[string]bool{}, events: make(chan struct{}, 1), stale: make(chan struct{}),
		late: map[string]chan struct{}{"slow-inline": make(chan struct{}), "slow-rdv": make(chan struct{}), "slow-grant": make(chan struct{})}}
	s.ln, s.region = listenFake(t, env, func(transport.Conn) transport.Handler { return lateConn{s} })

	// Depth 1: every request reuses the one slot, the worst case for
	// matching replies to requests. The timeouts come from contexts, so
	// the request that must not time out has all the time it needs.
	c := dial(t, env, s.ln.Addr(), rdmakv.WithTimeout(time.Minute), rdmakv.WithDepth(1))
	ctx := context.Background()
	short := func() context.Context {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		t.Cleanup(cancel)
		return ctx
	}
	get := func(key string) {
		t.Helper()
		v, err := c.Get(ctx, []byte(key))
		if err != nil {
			t.Fatalf("Get(%s) after a timed-out request: %v (connection should stay usable)", key, err)
		}
		if got := string(v.Bytes()); got != "fresh:"+key {
			t.Fatalf("Get(%s) returned %q: a late reply was taken for the answer to a later request", key, got)
		}
		v.Release()
	}
	// timeOut makes a request whose reply comes late time out, repeating
	// it until the server has it, and then lets the late reply go: a context that runs out before the
	// request goes out (a stall on a loaded machine) sends nothing, and
	// then no late reply would ever come ("hold" would wait for it
	// forever). A fast Get behind each try is a fence: the server handles
	// a connection's messages in order, so once the fence is answered the
	// server has seen the try if it was sent.
	timeOut := func(key string, do func(ctx context.Context) error) {
		t.Helper()
		for try := 0; !s.saw(key); try++ {
			if try == 20 {
				t.Fatalf("%s: %d requests with a 100ms context deadline all timed out before they were sent", key, try)
			}
			if err := do(short()); !errors.Is(err, rdmakv.ErrTimeout) {
				t.Fatalf("%s whose reply comes after it gave up, context deadline 100ms: %v, want ErrTimeout", key, err)
			}
			get("fence-" + key + "-" + itoa(try))
		}
		close(s.late[key])
	}
	getLate := func(ctx context.Context, key string) error {
		v, err := c.Get(ctx, []byte(key))
		if err == nil {
			v.Release()
		}
		return err
	}
	timeOut("slow-inline", func(ctx context.Context) error { return getLate(ctx, "slow-inline") })
	get("hold")
	for i := range 10 {
		get("fast-" + itoa(i))
	}

	timeOut("slow-rdv", func(ctx context.Context) error { return getLate(ctx, "slow-rdv") })
	if !s.waitFor(func() bool { return s.rels[lateRdvTok] }) {
		t.Errorf("a late GET_REPLY_RDV (token %d) was not released with GET_RELEASE: the server's read window stays pinned until its lease", lateRdvTok)
	}
	get("fast-after-rdv")

	timeOut("slow-grant", func(ctx context.Context) error { return c.Set(ctx, []byte("slow-grant"), pattern(20000, 1)) })
	if !s.waitFor(func() bool { _, ok := s.fins[lateSetTok]; return ok }) {
		t.Errorf("a late SET_RDV_GRANT (token %d) was not cancelled with SET_FIN: the server's slot stays pinned until its lease", lateSetTok)
	} else if l := s.finLen(lateSetTok); l == 20000 {
		t.Errorf("the late grant was cancelled with a SET_FIN of the grant's own length %d, which commits it", l)
	}
	get("fast-after-grant")
}
