//go:build rdmavm && linux && cgo

package verbs

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// holder hands every message, unreleased, to the test.
type holder struct{ msgs chan *transport.Message }

func (h holder) Deliver(_ transport.Conn, m *transport.Message) { h.msgs <- m }
func (holder) Closed(transport.Conn, error)                     {}

// TestDeferredReposts runs a busy-polled pair with one receive buffer of
// depth on each side, so every buffer goes round many times through
// Release's deferred repost (the poller's next burst posts it). Messages
// are held in groups as large as the buffers there are, then released
// together: none may be overwritten while held (a buffer posted twice
// would be), and the pair must keep going afterwards, which it cannot if
// a released buffer never went back.
func TestDeferredReposts(t *testing.T) {
	cfg := transport.Config{MaxMessage: 256, RecvDepth: 1, SendDepth: 4, Poll: transport.PollBusy}
	s := startServer(t, cfg, true)
	h := holder{msgs: make(chan *transport.Message, 64)}
	c := dialTest(t, s, cfg, h)
	vc := c.(*conn)
	if got, want := len(vc.g.rq.msgs), cfg.RecvDepth+deferMax; got != want || !vc.g.rq.deferred {
		t.Fatalf("busy client has %d receive buffers (deferred %v), want %d deferred", got, vc.g.rq.deferred, want)
	}
	group := cfg.RecvDepth + deferMax
	guard(t, 120*time.Second, func() {
		for round := 0; round < 40; round++ {
			held := make([]*transport.Message, 0, group)
			var want [][]byte
			for i := 0; i < group; i++ {
				p := []byte(fmt.Sprintf("round %d message %d %s", round, i, bytes.Repeat([]byte{byte(i)}, i*7)))
				if err := c.Send(p, nil, nil); err != nil {
					t.Fatalf("round %d: send %d: %v", round, i, err)
				}
				want = append(want, p)
				select {
				case m := <-h.msgs:
					held = append(held, m)
				case <-time.After(20 * time.Second):
					t.Fatalf("round %d: echo %d never came: a receive buffer was not reposted", round, i)
				}
			}
			for i, m := range held {
				if !bytes.Equal(m.Data, want[i]) {
					t.Fatalf("round %d: held message %d reads %q, want %q", round, i, m.Data, want[i])
				}
			}
			for _, m := range held {
				m.Release()
			}
		}
	})
}
