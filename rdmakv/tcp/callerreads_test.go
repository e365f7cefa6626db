package tcp

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// handing is a Handler that hands reads over to callers with the first
// message it is given, and queues copies of every message's bytes.
type handing struct {
	busy atomic.Bool // the owner expects messages no one awaits (idle false)
	got  chan []byte
}

func newHanding() *handing { return &handing{got: make(chan []byte, 64)} }

func (h *handing) Deliver(c transport.Conn, m *transport.Message) {
	c.(transport.CallerReader).HandOverReads(func() bool { return !h.busy.Load() })
	h.got <- bytes.Clone(m.Data)
	m.Release()
}

func (h *handing) Closed(transport.Conn, error) {}

// arrived is an Await's done: a message is queued.
func (h *handing) arrived() bool { return len(h.got) > 0 }

func (h *handing) next(t testing.TB) []byte {
	t.Helper()
	return await(t, h.got, "no message delivered")
}

// dialHanding dials a raw peer with a handing client whose reads are
// handed over by the peer's first message, "hello".
func dialHanding(t *testing.T) (*conn, *handing, *rawSender) {
	t.Helper()
	ln := rawListen(t)
	h := newHanding()
	c, err := network{}.Dial(t.Context(), ln.Addr().String(), withMode(smallCfg()), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	peer := &rawSender{t: t, nc: acceptRaw(t, ln)}
	peer.send("hello")
	if got := h.next(t); string(got) != "hello" {
		t.Fatalf("first message %q", got)
	}
	return c.(*conn), h, peer
}

// rawSender is a raw peer that sends SEND frames.
type rawSender struct {
	t  *testing.T
	nc interface{ Write([]byte) (int, error) }
}

func (p *rawSender) write(b []byte) {
	p.t.Helper()
	if _, err := p.nc.Write(b); err != nil {
		p.t.Fatal(err)
	}
}

func (p *rawSender) send(s string) {
	p.t.Helper()
	p.write(encodeFrame(header{op: opSend, len: uint32(len(s))}, []byte(s)))
}

// After the hand-over a message waits in the stream until a caller reads
// it in Await, which delivers it before it returns.
func TestAwaitDeliversOnCaller(t *testing.T) {
	c, h, peer := dialHanding(t)
	peer.send("one")
	select {
	case m := <-h.got:
		t.Fatalf("%q delivered with no one awaiting", m)
	case <-shortWait():
	}
	if err := c.Await(h.arrived, time.Now().Add(hangGuard)); err != nil {
		t.Fatal(err)
	}
	if got := h.next(t); string(got) != "one" {
		t.Fatalf("Await delivered %q", got)
	}
}

// An Await whose deadline passes with half a frame in leaves the stream
// at the frame's start: the next Await delivers the frame whole.
func TestAwaitTimeoutKeepsFrameWhole(t *testing.T) {
	c, h, peer := dialHanding(t)
	msg := bytes.Repeat([]byte("x"), 1000)
	frame := encodeFrame(header{op: opSend, len: uint32(len(msg))}, msg)
	peer.write(frame[:headerSize+300])
	wantErr(t, c.Await(h.arrived, time.Now().Add(50*time.Millisecond)), transport.ErrTimeout)
	peer.write(frame[headerSize+300:])
	if err := c.Await(h.arrived, time.Now().Add(hangGuard)); err != nil {
		t.Fatal(err)
	}
	if got := h.next(t); !bytes.Equal(got, msg) {
		t.Fatalf("frame split by a timed-out Await came out as %d bytes", len(got))
	}
	if c.isClosing() {
		t.Fatalf("connection closed by a timed-out Await: %v", c.opErr)
	}
}

// Wake ends an Await with ErrWoken, whether it comes before the Await
// reads or while it waits; the reader goroutine then reads, since the
// caller gave up, until an Await takes the stream back.
func TestWakeEndsAwait(t *testing.T) {
	c, h, peer := dialHanding(t)
	done := make(chan error, 1)
	go func() { done <- c.Await(h.arrived, time.Now().Add(hangGuard)) }()
	c.Wake()
	wantErr(t, await(t, done, "Wake did not end the Await"), transport.ErrWoken)
	peer.send("after")
	if got := h.next(t); string(got) != "after" {
		t.Fatalf("the reader goroutine delivered %q", got)
	}
	peer.send("taken")
	if err := c.Await(h.arrived, time.Now().Add(hangGuard)); err != nil {
		t.Fatal(err)
	}
	if got := h.next(t); string(got) != "taken" {
		t.Fatalf("Await after Wake delivered %q", got)
	}
}

// A Wake in the middle of a frame larger than the stream buffer ends the
// Await only at the frame's end: the frame arrives whole.
func TestWakeMidFrame(t *testing.T) {
	c, h, peer := dialHanding(t)
	msg := bytes.Repeat([]byte("y"), smallCfg().MaxMessage) // with its header, more than the buffer
	frame := encodeFrame(header{op: opSend, len: uint32(len(msg))}, msg)
	peer.write(frame[:headerSize+10])
	done := make(chan error, 1)
	go func() { done <- c.Await(h.arrived, time.Time{}) }()
	c.Wake()
	peer.write(frame[headerSize+10:])
	if err := await(t, done, "Await did not return"); err != nil && err != transport.ErrWoken {
		t.Fatal(err)
	}
	if got := h.next(t); !bytes.Equal(got, msg) {
		t.Fatalf("frame cut by Wake came out as %d bytes", len(got))
	}
	if c.isClosing() {
		t.Fatalf("connection closed by Wake: %v", c.opErr)
	}
}

// While idle reports false, what comes after an Await is delivered by the
// reader goroutine, and the next Await takes reading back from it.
func TestNotIdleKeepsReaderReading(t *testing.T) {
	c, h, peer := dialHanding(t)
	h.busy.Store(true)
	peer.send("a")
	if err := c.Await(h.arrived, time.Now().Add(hangGuard)); err != nil {
		t.Fatal(err)
	}
	h.next(t)
	peer.send("late")
	if got := h.next(t); string(got) != "late" {
		t.Fatalf("reader goroutine delivered %q", got)
	}
	h.busy.Store(false)
	for _, m := range []string{"b", "c"} {
		peer.send(m)
		if err := c.Await(h.arrived, time.Now().Add(hangGuard)); err != nil {
			t.Fatal(err)
		}
		if got := h.next(t); string(got) != m {
			t.Fatalf("delivered %q, want %q", got, m)
		}
	}
}

// One-sided operations on a connection whose reads were handed over read
// their own completions.
func TestOneSidedAfterHandOver(t *testing.T) {
	s := listen(t, smallCfg())
	h := newHanding()
	cc, err := network{}.Dial(t.Context(), s.ln.Addr(), withMode(smallCfg()), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	sc, srec := s.accepted(t)
	if err := sc.Send([]byte("hello"), nil, nil); err != nil {
		t.Fatal(err)
	}
	h.next(t)
	local := register(t, cc, 1<<20, transport.AccessLocal)
	remote := register(t, s.ln, 1<<20, transport.AccessRemoteRead|transport.AccessRemoteWrite)
	for _, n := range []int{100, 64 << 10, 1 << 20} {
		fill(local.Bytes()[:n], byte(n))
		if err := cc.WriteImm(local, 0, n, remote.Addr(), remote.RKey(), 7); err != nil {
			t.Fatalf("WriteImm of %d bytes: %v", n, err)
		}
		srec.next(t).Release()
		if !bytes.Equal(remote.Bytes()[:n], local.Bytes()[:n]) {
			t.Fatalf("WriteImm of %d bytes: target differs", n)
		}
		clear(local.Bytes()[:n])
		if err := cc.Read(local, 0, n, remote.Addr(), remote.RKey()); err != nil {
			t.Fatalf("Read of %d bytes: %v", n, err)
		}
		if !bytes.Equal(remote.Bytes()[:n], local.Bytes()[:n]) {
			t.Fatalf("Read of %d bytes: local differs", n)
		}
	}
}
