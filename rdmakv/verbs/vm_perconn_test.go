//go:build rdmavm && linux && cgo

package verbs

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// With receives per connection, each connection has RecvDepth receives of
// its own: while one connection's messages are all held, another's still
// land (on a shared queue of RecvDepth they would meet RNR), every
// message whole. A closed connection's queue is freed once the last of
// its messages is released, not before.
func TestPerConnectionReceives(t *testing.T) {
	for _, poll := range []transport.Poll{transport.PollEvent, transport.PollBusy} {
		t.Run(poll.String(), func(t *testing.T) {
			cfg := transport.Config{MaxMessage: 4096, RecvDepth: 4, SendDepth: 16, Poll: poll, Receives: transport.ReceivesPerConn}
			h := keeper{make(chan *transport.Message, 64)}
			accepted := make(chan *conn, 4)
			l, err := network{}.Listen(vmAddr(t)+":0", cfg, func(c transport.Conn) transport.Handler {
				accepted <- c.(*conn)
				return h
			})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if _, ok := l.(transport.SharedReceives); ok {
				t.Fatal("a listener with receives per connection offers SharedReceives")
			}
			s := &server{l: l}
			if sl := s.listener(); sl.srq != nil || sl.g.rq != nil {
				t.Fatal("a listener with receives per connection made a shared receive queue")
			}
			ccfg := transport.Config{MaxMessage: 4096, RecvDepth: 4, SendDepth: 16, Poll: poll}
			a := dialTest(t, s, ccfg, newRecorder(false))
			sa := <-accepted
			b := dialTest(t, s, ccfg, newRecorder(false))
			sb := <-accepted
			if sa.rq == sb.rq || !sa.ownRQ || sa.rq.shared() {
				t.Fatal("accepted connections do not have receive queues of their own")
			}
			send := func(c transport.Conn, name string, n int) []*transport.Message {
				t.Helper()
				var held []*transport.Message
				for i := range n {
					want := fmt.Sprintf("%s message %d %s", name, i, string(make([]byte, 300)))
					if err := c.Send([]byte(want), nil, nil); err != nil {
						t.Fatal(err)
					}
					m := <-h.got
					if string(m.Data) != want {
						t.Fatalf("%s message %d arrived as %q", name, i, m.Data[:20])
					}
					held = append(held, m)
				}
				return held
			}
			guard(t, 60*time.Second, func() {
				heldA := send(a, "a", 4)
				heldB := send(b, "b", 4)
				for _, m := range heldA[1:] {
					m.Release()
				}
				heldA = append(heldA[:1], send(a, "a again", 3)...)
				a.Close()
				<-sa.done
				if !sa.rq.destroyed.Load() || sa.rq.bufs == nil {
					t.Fatal("a closed connection's receive queue was freed while its messages are held, or never destroyed")
				}
				for _, m := range heldA {
					m.Release()
				}
				if sa.rq.bufs != nil {
					t.Fatal("a closed connection's receive queue outlived its last message")
				}
				for _, m := range heldB {
					m.Release()
				}
				send(b, "b after a closed", 4)
			})
		})
	}
}

// A device that claims shared receive queues but makes none serves with
// receives per connection, and says so, unless the shared queue is
// required: then Listen fails with the reason.
func TestSRQFailureServesPerConnection(t *testing.T) {
	srqFault = syscall.EOPNOTSUPP
	defer func() { srqFault = nil }()
	cfg := testConfig(transport.PollEvent)
	s := startServer(t, cfg, true)
	if _, ok := s.l.(transport.SharedReceives); ok || s.l.Info().Receives != transport.ReceivesPerConn {
		t.Fatalf("listener after a failed SRQ: receives %v", s.l.Info().Receives)
	}
	rec := newRecorder(false)
	c := dialTest(t, s, cfg, rec)
	guard(t, 60*time.Second, func() {
		for i := range 3 * cfg.RecvDepth {
			want := fmt.Sprintf("echo %d", i)
			if err := c.Send([]byte(want), nil, nil); err != nil {
				t.Fatal(err)
			}
			if g := rec.next(t); string(g.data) != want {
				t.Fatalf("echo %d came back as %q", i, g.data)
			}
		}
	})
	cfg.Receives = transport.ReceivesShared
	_, err := network{}.Listen(vmAddr(t)+":0", cfg, func(transport.Conn) transport.Handler { return newRecorder(false) })
	if err == nil || !errors.Is(err, syscall.EOPNOTSUPP) || !strings.Contains(err.Error(), "create shared receive queue") {
		t.Fatalf("Listen requiring the shared queue: %v, want the SRQ's failure", err)
	}
}
