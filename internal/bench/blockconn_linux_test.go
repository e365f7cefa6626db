//go:build linux

package bench

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// TestBlockingConn: a blocking socket reads what the peer wrote, a read
// the peer never answers fails as a timeout, the peer's close is EOF, and
// a second Close says the conn is closed.
func TestBlockingConn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(peer)
			return
		}
		peer <- c
	}()
	d := netDialer(time.Second)
	c, err := dialBlocking(context.Background(), &d, ln.Addr().String(), 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	p := <-peer
	if p == nil {
		t.Fatal("accept failed")
	}

	if _, err := c.Write([]byte("get k\r\n")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 7)
	if _, err := io.ReadFull(p, got); err != nil || string(got) != "get k\r\n" {
		t.Fatalf("peer read %q, %v", got, err)
	}
	if _, err := p.Write([]byte("END\r\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, got[:5]); err != nil || string(got[:5]) != "END\r\n" {
		t.Fatalf("read %q, %v", got[:5], err)
	}

	if _, err := c.Read(got); baselineErr(err) != ErrTimeout {
		t.Fatalf("unanswered read: %v, want a timeout", err)
	}

	p.Close()
	if _, err := c.Read(got); err != io.EOF {
		t.Fatalf("read after the peer closed: %v, want EOF", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("second close: %v", err)
	}
}
