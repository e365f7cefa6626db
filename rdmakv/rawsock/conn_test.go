package rawsock

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// A Conn is a net.Conn: bytes go both ways, the peer's end is io.EOF, and
// the errors of a closed Conn name the operation and are net.ErrClosed.
func TestConnReadWrite(t *testing.T) {
	nc, peer := dialPair(t, Dial(&net.Dialer{}, time.Second))
	c, ok := nc.(*Conn)
	if !ok {
		t.Fatalf("Dial gave a %T, not a *Conn", nc)
	}
	checkReadWrite(t, c, peer)
}

// dialPair is a connection dial made to a listener, and the accepted end.
func dialPair(t *testing.T, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (nc, peer net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if nc, err = dial(t.Context(), "tcp", l.Addr().String()); err != nil {
		t.Fatal(err)
	}
	if peer, err = l.Accept(); err != nil {
		nc.Close()
		t.Fatal(err)
	}
	return nc, peer
}

// checkReadWrite has c and peer trade bytes both ways, then sees io.EOF
// once peer closes and net.ErrClosed, named by operation, once c does.
func checkReadWrite(t *testing.T, c, peer net.Conn) {
	t.Helper()
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	if n, err := io.ReadAtLeast(peer, buf, 4); err != nil || string(buf[:n]) != "ping" {
		t.Fatalf("peer read %q, %v", buf[:n], err)
	}
	peer.Write([]byte("pong"))
	peer.Close()
	if n, err := io.ReadAtLeast(c, buf, 4); err != nil || string(buf[:n]) != "pong" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if _, err := c.Read(buf); err != io.EOF {
		t.Fatalf("read after the peer closed: %v, want io.EOF", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := c.Read(buf)
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "read" || !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read of a closed %T: %v", c, err)
	}
	if _, err := c.Write(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write of a closed %T: %v", c, err)
	}
}

// A deadline fires no earlier than it says, however large the slack; one
// in the past ends a wait at once; a zero deadline waits for data.
func TestConnDeadlines(t *testing.T) {
	a, b := tcpPair(t)
	c, err := NewConn(b, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	read := func() error {
		done := make(chan error, 1)
		go func() { _, err := c.Read(buf); done <- err }()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			t.Fatal("a read past its deadline still waits")
			return nil
		}
	}

	at := time.Now().Add(30 * time.Millisecond)
	c.SetReadDeadline(at)
	c.SetReadDeadline(time.Now()) // past: given to the socket as it is
	if err := read(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past a deadline: %v", err)
	}
	var ne net.Error
	if err := read(); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("a deadline's error is not a net.Error timeout: %v", err)
	}

	c, err = NewConn(b, 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	at = time.Now().Add(50 * time.Millisecond)
	c.SetDeadline(at)
	if err := read(); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past a deadline: %v", err)
	}
	if now := time.Now(); now.Before(at) {
		t.Fatalf("the deadline fired %v early", at.Sub(now))
	}

	c.SetDeadline(time.Time{})
	go func() { time.Sleep(50 * time.Millisecond); a.Write([]byte("late")) }()
	if err := read(); err != nil || string(buf[:4]) != "late" {
		t.Fatalf("read with no deadline: %q, %v", buf[:4], err)
	}
}

// stale re-arms a socket only when its deadline would fire early, or
// later than the slack allows, or is set where none is wanted or the
// reverse.
func TestStale(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := time.Second
	cases := []struct {
		have, want time.Time
		stale      bool
	}{
		{time.Time{}, time.Time{}, false},
		{time.Time{}, t0, true},
		{t0, time.Time{}, true},
		{t0, t0, false},
		{t0.Add(s), t0, false},            // fires at most the slack late
		{t0.Add(s + 1), t0, true},         // later than the slack
		{t0, t0.Add(1), true},             // would fire early
		{t0.Add(s), t0.Add(s / 2), false}, // a later request within the slack
	}
	for _, c := range cases {
		if got := stale(c.have, c.want, s); got != c.stale {
			t.Errorf("stale(%v, %v) = %v, want %v", c.have, c.want, got, c.stale)
		}
	}
}

// tcpPair is a connected pair of loopback TCP sockets.
func tcpPair(t *testing.T) (a, b *net.TCPConn) {
	t.Helper()
	l, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	a, err = net.DialTCP("tcp", nil, l.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatal(err)
	}
	b, err = l.AcceptTCP()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}
