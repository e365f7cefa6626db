//go:build rdmavm && linux && cgo

package verbs

import (
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// TestRingOpensOnFirstLargeSend: a connection that has only sent messages
// small enough to go inline (a handshake, small replies) has registered no
// send ring; the first larger message registers it, and both arrive.
func TestRingOpensOnFirstLargeSend(t *testing.T) {
	got := make(chan int, 4)
	cfg := transport.Config{MaxMessage: 4096, RecvDepth: 16, SendDepth: 16}
	s := startServer(t, cfg, false)
	dialTest(t, s, cfg, lengths(got))
	c, _ := s.accepted(t)
	sc := c.(*conn)
	if sc.maxInline < 64 {
		t.Fatalf("device %s inlines only %d bytes", sc.dev.name, sc.maxInline)
	}
	for _, n := range []int{64, 4000} {
		if err := sc.Send(make([]byte, n), nil, nil); err != nil {
			t.Fatalf("Send(%d bytes): %v", n, err)
		}
		select {
		case m := <-got:
			if m != n {
				t.Fatalf("sent %d bytes, received %d", n, m)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the %d-byte message never arrived", n)
		}
		sc.sendMu.Lock()
		open := sc.ring != nil
		sc.sendMu.Unlock()
		if want := n > int(sc.maxInline); open != want {
			t.Fatalf("after a %d-byte send (inline limit %d) the send ring is registered: %v, want %v", n, sc.maxInline, open, want)
		}
	}
}

// lengths is a Handler that reports the length of each message.
type lengths chan int

func (h lengths) Deliver(_ transport.Conn, m *transport.Message) {
	h <- len(m.Data)
	m.Release()
}
func (lengths) Closed(transport.Conn, error) {}
