package rdmakv

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
	"github.com/kvbench/kvbench/rdmakv/transport"
)

// TestBoundedListenerKeepsRoom: on a listener that holds a fixed number of
// connections (verbs), a newcomer that fills it sheds the oldest
// connection waiting for HELLO, with the handshake budget far from full,
// so the next newcomer finds room instead of being refused unseen.
func TestBoundedListenerKeepsRoom(t *testing.T) {
	s, logs := coreServer(t, func(c *ServerConfig) { c.HandshakeTimeout = time.Hour })
	s.connMu.Lock()
	s.capacity = 3 // as a verbs listener with room for three says
	s.connMu.Unlock()
	served := coreDial(t, s)
	a, b := idleSocket(t, s), idleSocket(t, s) // b fills the listener
	if err := waitSocketDropped(a); err != nil {
		t.Fatalf("the idle connection a newcomer that filled the listener should have shed: %v", err)
	}
	waitServerConns(t, s, 2)
	c := coreDial(t, s) // fills it again, shedding b
	if err := waitSocketDropped(b); err != nil {
		t.Fatalf("the idle connection the client that filled the listener should have shed: %v", err)
	}
	ctx := context.Background()
	if err := c.Set(ctx, []byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if _, err := served.Get(ctx, []byte("k")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "3 connections open, the most the listener holds") {
		t.Errorf("the server did not say why it shed the idle connections:\n%s", logs.String())
	}
}

// idleSocket connects to s and never says anything.
func idleSocket(t *testing.T, s *Server) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// waitSocketDropped reads until the server closes c; the deadline is a
// hang guard.
func waitSocketDropped(c net.Conn) error {
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return errors.New("the server kept it open")
	}
	return nil
}

// waitServerConns waits until s holds n connections, closed ones
// forgotten; the deadline is a hang guard.
func waitServerConns(t *testing.T, s *Server, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); s.Stats().Conns != n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server holds %d connections, want %d", s.Stats().Conns, n)
		}
	}
}

// handshakeConn is a connection admission sees: its peer has spoken or
// not, as the test says, and a reset is recorded.
type handshakeConn struct {
	transport.Conn // nil: admission calls only what is below
	name           string
	spoke          atomic.Bool
	asked          atomic.Int32 // calls of Spoken
	reset, closed  chan struct{}
	closeOnce      sync.Once
}

func newHandshakeConn(name string, spoke bool) *handshakeConn {
	c := &handshakeConn{name: name, reset: make(chan struct{}), closed: make(chan struct{})}
	c.spoke.Store(spoke)
	return c
}

func (c *handshakeConn) Spoken() bool       { c.asked.Add(1); return c.spoke.Load() }
func (c *handshakeConn) ReadAhead()         {}
func (c *handshakeConn) Reset() error       { close(c.reset); return nil }
func (c *handshakeConn) Close() error       { c.closeOnce.Do(func() { close(c.closed) }); return nil }
func (c *handshakeConn) RemoteAddr() string { return c.name }

// wasReset reports whether admission reset c, waiting for the background
// turn-away once the server has said so in its log.
func (c *handshakeConn) wasReset(t *testing.T, logs *logbuf.Buffer) bool {
	t.Helper()
	if !strings.Contains(logs.String(), "remote="+c.name+" ") {
		return false
	}
	select {
	case <-c.reset:
		return true
	case <-time.After(10 * time.Second):
		t.Fatalf("%s was shed but not reset", c.name)
		return false
	}
}

// A full handshake budget sheds the connection that has waited longest of
// those whose peer has said nothing, never one whose HELLO has arrived;
// the newcomer itself when every other has spoken; and none when the
// newcomer has spoken too. Shed connections are reset.
func TestShedsOnlySilentHandshakes(t *testing.T) {
	s, logs := coreServer(t, func(c *ServerConfig) { c.MaxHandshakes, c.HandshakeTimeout = 3, time.Hour })
	spokenA, silentB, spokenC := newHandshakeConn("a", true), newHandshakeConn("b", false), newHandshakeConn("c", true)
	silentD, silentE := newHandshakeConn("d", false), newHandshakeConn("e", false)
	for _, c := range []*handshakeConn{spokenA, silentB, spokenC} {
		s.accept(c)
	}
	s.accept(silentD) // sheds b: a spoke first
	waitLog(t, logs, "remote=b ")
	s.accept(silentE) // sheds d
	waitLog(t, logs, "remote=d ")
	silentE.spoke.Store(true)
	silentF := newHandshakeConn("f", false)
	s.accept(silentF) // every other has spoken: sheds itself
	waitLog(t, logs, "remote=f ")
	spokenG := newHandshakeConn("g", true)
	s.accept(spokenG) // every one has spoken: over budget until they are served
	s.Close()         // waits for the turn-aways under way
	for _, c := range []*handshakeConn{silentB, silentD, silentF} {
		if !c.wasReset(t, logs) {
			t.Errorf("%s, silent, was not shed", c.name)
		}
	}
	for _, c := range []*handshakeConn{spokenA, spokenC, silentE, spokenG} {
		if c.wasReset(t, logs) {
			t.Errorf("%s, which had spoken, was shed:\n%s", c.name, logs)
		}
	}
	if n := s.Counters().Refused[RefusedHandshakeShed]; n != 3 {
		t.Errorf("%d handshakes counted shed, want 3", n)
	}
}

// waitLog waits until the server's log says want; the deadline is a hang
// guard.
func waitLog(t *testing.T, logs *logbuf.Buffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), want); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server never logged %q:\n%s", want, logs)
		}
	}
}

// The handshake timeout spares a connection whose HELLO has arrived and
// waits to be read: each time it runs out, it runs again; once the peer
// has said nothing at its end, the connection is dropped.
func TestHandshakeTimeoutSparesSpoken(t *testing.T) {
	s, logs := coreServer(t, func(c *ServerConfig) { c.HandshakeTimeout = time.Millisecond })
	c := newHandshakeConn("slow-to-read", true)
	s.accept(c)
	for c.asked.Load() < 3 { // the timeout ran out three times
		select {
		case <-c.closed:
			t.Fatalf("the handshake timeout dropped a connection whose HELLO had arrived:\n%s", logs)
		case <-time.After(time.Millisecond):
		}
	}
	c.spoke.Store(false)
	select {
	case <-c.closed:
	case <-time.After(10 * time.Second):
		t.Fatal("a connection that said nothing outlived the handshake timeout (hang guard)")
	}
	waitLog(t, logs, "no HELLO within 1ms")
}
