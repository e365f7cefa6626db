package tcp

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/rawsock"
)

// rawPair is a loopback pair of plain sockets: the peer's and the other.
func rawPair(t *testing.T) (peer, nc *net.TCPConn) {
	t.Helper()
	ln := rawListen(t)
	peer = rawDial(t, ln.Addr().String())
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return peer, c.(*net.TCPConn)
}

// What the net.Conn path's read-ahead holds, Peek sees from any goroutine
// and Read takes first; once it is drained, reads go to the socket and
// its buffer is gone.
func TestReadAhead(t *testing.T) {
	peer, nc := rawPair(t)
	ra := &readAhead{nc: nc}
	peer.Write([]byte("hello"))
	head := make([]byte, 2)
	pk, err := ra.AwaitPeek(head, func(pk rawsock.Peeked) bool { return pk.Queued >= 5 })
	if err != nil || pk != (rawsock.Peeked{N: 2, Queued: 5}) || string(head) != "he" {
		t.Fatalf("AwaitPeek: %+v %q, %v", pk, head, err)
	}
	looked := make(chan rawsock.Peeked)
	go func() {
		pk, _ := ra.Peek(make([]byte, 8))
		looked <- pk
	}()
	buf := make([]byte, 3)
	if n, err := ra.Read(buf); err != nil || string(buf[:n]) != "hel" {
		t.Fatalf("the Read after AwaitPeek: %q, %v", buf[:n], err)
	}
	if pk := await(t, looked, "Peek beside Read did not return"); pk.Queued != 5 && pk.Queued != 2 {
		t.Fatalf("Peek beside a Read saw %d bytes, not what was there before or after it", pk.Queued)
	}
	if ra.buf == nil {
		t.Fatal("the read-ahead dropped bytes unread")
	}
	if n, err := ra.Read(buf); err != nil || string(buf[:n]) != "lo" {
		t.Fatalf("the Read after the guard: %q, %v", buf[:n], err)
	}
	if ra.buf != nil {
		t.Fatal("the read-ahead keeps its buffer once drained")
	}
	peer.Write([]byte("x"))
	if n, err := ra.Read(buf); err != nil || string(buf[:n]) != "x" {
		t.Fatalf("a Read of the socket: %q, %v", buf[:n], err)
	}

	// More than a header: the buffer grows to hold it.
	frame := sendFrame('f', 3*headerSize)
	peer.Write(frame)
	pk, err = ra.AwaitPeek(head, func(pk rawsock.Peeked) bool { return pk.Queued == len(frame) })
	if err != nil || pk.N != len(head) {
		t.Fatalf("AwaitPeek of %d bytes: %+v, %v", len(frame), pk, err)
	}
	got := make([]byte, len(frame))
	if _, err := io.ReadFull(ra, got); err != nil || !bytes.Equal(got, frame) {
		t.Fatalf("read %q, %v; want %q", got, err, frame)
	}
}

// The peer's shutdown is a hang-up to AwaitPeek, and io.EOF once nothing
// is left; a failed read's error reaches the Read after what was read
// ahead, as the socket's would.
func TestReadAheadEnds(t *testing.T) {
	peer, nc := rawPair(t)
	ra := &readAhead{nc: nc}
	peer.Write([]byte("ab"))
	peer.CloseWrite()
	never := func(rawsock.Peeked) bool { return false }
	pk, err := ra.AwaitPeek(make([]byte, 4), never)
	if err != nil || pk != (rawsock.Peeked{N: 2, Queued: 2, Hup: true}) {
		t.Fatalf("AwaitPeek as the peer shuts down: %+v, %v", pk, err)
	}
	if b, err := io.ReadAll(ra); err != nil || string(b) != "ab" {
		t.Fatalf("read to the end: %q, %v", b, err)
	}
	if _, err := ra.AwaitPeek(make([]byte, 4), never); err != io.EOF {
		t.Fatalf("AwaitPeek with nothing left: %v, want io.EOF", err)
	}

	peer, nc = rawPair(t)
	ra = &readAhead{nc: nc}
	peer.Write([]byte("cd"))
	ra.AwaitPeek(make([]byte, 4), func(pk rawsock.Peeked) bool { return pk.Queued == 2 })
	nc.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	if _, err := ra.AwaitPeek(make([]byte, 4), never); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("AwaitPeek past its deadline: %v", err)
	}
	nc.SetReadDeadline(time.Time{})
	buf := make([]byte, 4)
	if n, err := ra.Read(buf); err != nil || string(buf[:n]) != "cd" {
		t.Fatalf("the Read after: %q, %v", buf[:n], err)
	}
	if _, err := ra.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the Read once drained: %v, want the read-ahead's error", err)
	}
}
