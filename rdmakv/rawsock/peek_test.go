//go:build linux

package rawsock

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// Peek sees what the peer sent without taking it: the next Read gets the
// same bytes. It says how many are queued, and that the peer has shut
// down once it has, with bytes still queued or none.
func TestPeek(t *testing.T) {
	a, b, s := sockPair(t)
	head := make([]byte, 4)
	if pk, err := s.Peek(head); err != nil || pk != (Peeked{}) {
		t.Fatalf("Peek of an empty socket: %+v, %v", pk, err)
	}
	a.Write([]byte("hello, world"))
	pk, err := awaitPeek(t, s, head, "bytes to arrive", func(pk Peeked) bool { return pk.Queued >= 12 })
	if err != nil || pk.N != 4 || pk.Hup || string(head) != "hell" {
		t.Fatalf("Peek: %+v %q, %v; want 4 bytes of 12 queued, no hang-up", pk, head, err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(s, buf); err != nil || string(buf) != "hello" {
		t.Fatalf("the Read after Peek: %q, %v", buf, err)
	}
	a.CloseWrite()
	if pk, err := awaitPeek(t, s, head, "the peer's shutdown", func(pk Peeked) bool { return pk.Hup }); err != nil || pk.Queued != 7 || string(head) != ", wo" {
		t.Fatalf("Peek after the peer shut down: %+v %q, %v", pk, head, err)
	}
	io.ReadFull(s, make([]byte, 7))
	if pk, err := s.Peek(head); err != nil || !pk.Hup || pk.N != 0 || pk.Queued != 0 {
		t.Fatalf("Peek of a drained socket whose peer shut down: %+v, %v", pk, err)
	}
	b.Close()
	if _, err := s.Peek(head); err == nil {
		t.Fatal("Peek of a closed socket succeeded")
	}
}

// AwaitPeek waits until its done says the queue will do, looking again
// as bytes arrive (each arrival at least once; the poller may wake it
// more often); it ends with io.EOF when the peer shuts down with nothing
// queued, and with the read deadline.
func TestAwaitPeek(t *testing.T) {
	a, b, s := sockPair(t)
	head := make([]byte, 2)
	seen := make(chan int, 1024) // what each look found queued
	got := make(chan error, 1)
	go func() {
		_, err := s.AwaitPeek(head, func(pk Peeked) bool {
			select {
			case seen <- pk.Queued:
			default: // a thousand looks at six bytes: the test fails below
			}
			return pk.Queued >= 6
		})
		got <- err
	}()
	for i, part := range []string{"ab", "cd"} {
		a.Write([]byte(part))
		for n := 0; n != 2*(i+1); {
			n = await(t, seen, "no look at the bytes that arrived")
			if n < 2*i || n > 2*(i+1) {
				t.Fatalf("a look with %d bytes sent saw %d queued", 2*(i+1), n)
			}
		}
	}
	select {
	case err := <-got:
		t.Fatalf("AwaitPeek for 6 bytes returned with 4 queued: %v", err)
	default:
	}
	a.Write([]byte("ef"))
	if err := wait(t, "AwaitPeek for 6 bytes", func() error { return <-got }); err != nil || string(head) != "ab" {
		t.Fatalf("AwaitPeek for 6 bytes: %q, %v", head, err)
	}
	io.ReadFull(s, make([]byte, 6))
	_ = b.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := s.AwaitPeek(head, func(Peeked) bool { return true }); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("AwaitPeek past its deadline: %v", err)
	}
	_ = b.SetReadDeadline(time.Time{})
	a.CloseWrite()
	if _, err := s.AwaitPeek(head, func(pk Peeked) bool { return pk.Hup }); err != io.EOF {
		t.Fatalf("AwaitPeek once the peer shut down: %v, want io.EOF", err)
	}
}

// sockPair is a loopback pair: the peer's socket, and the other end's as
// a Sock.
func sockPair(t *testing.T) (peer, conn *net.TCPConn, s *Sock) {
	t.Helper()
	peer, conn = tcpPair(t)
	s, err := New(conn)
	if err != nil {
		t.Fatal(err)
	}
	return peer, conn, s
}

// awaitPeek is AwaitPeek until done, failing the test if it still waits
// after the hang guard.
func awaitPeek(t *testing.T, s *Sock, p []byte, what string, done func(Peeked) bool) (pk Peeked, err error) {
	t.Helper()
	wait(t, what, func() error {
		pk, err = s.AwaitPeek(p, done)
		return nil
	})
	return pk, err
}

// await is what ch yields next; the deadline is a hang guard.
func await[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal(what)
		panic("unreachable")
	}
}
