//go:build rdmavm && linux && cgo

package verbs

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// keeper is a Handler that keeps every message it is given, unreleased.
type keeper struct{ got chan *transport.Message }

func (h keeper) Deliver(_ transport.Conn, m *transport.Message) { h.got <- m }
func (h keeper) Closed(transport.Conn, error)                   {}

// A shared receive queue grows a RecvDepth at a time: messages sent while
// every first buffer is held land in the grown ones, whole, and the queue
// stops at MaxRecvDepth.
func TestSharedReceivesGrow(t *testing.T) {
	for _, poll := range []transport.Poll{transport.PollEvent, transport.PollBusy} {
		t.Run(poll.String(), func(t *testing.T) {
			cfg := transport.Config{MaxMessage: 4096, RecvDepth: 4, MaxRecvDepth: 12, SendDepth: 16, Poll: poll}
			h := keeper{make(chan *transport.Message, 64)}
			l, err := network{}.Listen(vmAddr(t)+":0", cfg, func(transport.Conn) transport.Handler { return h })
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			sr := l.(transport.SharedReceives)
			if sr.SharedRecvs() != 4 || sr.MaxSharedRecvs() != 12 {
				t.Fatalf("shared receives %d of at most %d, want 4 of 12", sr.SharedRecvs(), sr.MaxSharedRecvs())
			}
			c := dialTest(t, &server{l: l}, transport.Config{MaxMessage: 4096, RecvDepth: 4, SendDepth: 16, Poll: poll}, newRecorder(false))
			var held []*transport.Message
			guard(t, 60*time.Second, func() {
				for round := range 3 {
					if round > 0 {
						n, err := sr.GrowRecvs()
						if err != nil || n != 4*(round+1) {
							t.Fatalf("grow %d: %d receives, %v", round, n, err)
						}
					}
					for i := range 4 {
						want := fmt.Sprintf("round %d message %d %s", round, i, string(make([]byte, 300)))
						if err := c.Send([]byte(want), nil, nil); err != nil {
							t.Fatal(err)
						}
						m := <-h.got
						if string(m.Data) != want {
							t.Fatalf("round %d message %d arrived as %q", round, i, m.Data[:20])
						}
						held = append(held, m)
					}
				}
			})
			if n, err := sr.GrowRecvs(); err == nil || n != 12 {
				t.Errorf("grow past MaxRecvDepth: %d receives, %v; want 12 and an error", n, err)
			}
			for _, m := range held {
				m.Release()
			}
		})
	}
}

// A region registered for windows only grants nothing by its own rkey,
// and what a window over it grants, it grants.
func TestGrantOnlyRegion(t *testing.T) {
	cfg := testConfig(transport.PollEvent)
	s := startServer(t, cfg, false)
	pool, err := s.l.Register(64<<10, transport.AccessRemoteRead|transport.AccessRemoteWrite|transport.AccessGrantOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	c := dialTest(t, s, cfg, newRecorder(false))
	sc, _ := s.accepted(t)
	buf, _ := c.Register(4096, transport.AccessLocal)
	defer buf.Close()
	guard(t, 60*time.Second, func() {
		rkey, err := sc.Grant(pool, 4096, 4096, transport.AccessRemoteWrite)
		if err != nil {
			t.Fatal(err)
		}
		if rkey == pool.RKey() {
			t.Fatal("Grant returned the region's own key: rxe binds memory windows")
		}
		if err := c.Write(buf, 0, 4096, pool.Addr()+4096, rkey); err != nil {
			t.Fatalf("write through the window: %v", err)
		}
		if err := c.Write(buf, 0, 64, pool.Addr(), pool.RKey()); !errors.Is(err, transport.ErrRemoteAccess) {
			t.Fatalf("write by the region's own rkey: %v, want ErrRemoteAccess", err)
		}
	})
}
