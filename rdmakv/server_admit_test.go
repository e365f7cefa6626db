package rdmakv

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
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
