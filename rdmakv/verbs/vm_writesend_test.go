//go:build rdmavm && linux && cgo

package verbs

import (
	"bytes"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// landed reports, for each message delivered, whether the target region
// already held the value the message names by its first byte.
type landed struct {
	target func() []byte
	ok     chan bool
}

func (h landed) Deliver(_ transport.Conn, m *transport.Message) {
	want := bytes.Repeat(m.Data[:1], 64<<10)
	h.ok <- bytes.Equal(h.target()[:len(want)], want)
	m.Release()
}
func (landed) Closed(transport.Conn, error) {}

// TestWriteSendLandsBeforeMessage: WriteSend, the path of a device without
// immediate data, delivers its message only once the data it wrote is in
// place, round after round, and invalidates nothing.
func TestWriteSendLandsBeforeMessage(t *testing.T) {
	cfg := transport.Config{MaxMessage: 4096, RecvDepth: 64, SendDepth: 64, Poll: transport.PollEvent}
	var target transport.Region
	h := landed{target: func() []byte { return target.Bytes() }, ok: make(chan bool, 1)}
	l, err := network{}.Listen(vmAddr(t)+":0", cfg, func(transport.Conn) transport.Handler { return h })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if target, err = l.Register(1<<20, transport.AccessRemoteWrite); err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	c := dialTest(t, &server{l: l}, cfg, sink{})
	local, err := c.Register(1<<20, transport.AccessLocal)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	ws, ok := c.(transport.WriteSender)
	if !ok || ws.NoWriteImm() {
		t.Fatalf("verbs conn: WriteSender %v, NoWriteImm on rxe %v; want one, false", ok, ok && ws.NoWriteImm())
	}
	for round := byte(1); round <= 20; round++ {
		copy(local.Bytes(), bytes.Repeat([]byte{round}, 64<<10))
		if err := ws.WriteSend(local, 0, 64<<10, target.Addr(), target.RKey(), []byte{round}, nil, nil); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		select {
		case ok := <-h.ok:
			if !ok {
				t.Fatalf("round %d: the message arrived before the data", round)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("round %d: no message (hang guard)", round)
		}
	}
}
