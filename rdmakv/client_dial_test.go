package rdmakv

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
)

// resetFront listens in front of target: it resets the first n
// connections it accepts, reading nothing of them, as a flooded server
// sheds a client whose HELLO has not arrived, and relays the rest to
// target. It counts the connections it accepts.
func resetFront(t *testing.T, target string, n int) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if accepted.Add(1) <= int32(n) {
				c.(*net.TCPConn).SetLinger(0)
				c.Close()
				continue
			}
			go relay(c, target)
		}
	}()
	return ln.Addr().String(), &accepted
}

func relay(c net.Conn, target string) {
	defer c.Close()
	up, err := net.Dial("tcp", target)
	if err != nil {
		return
	}
	defer up.Close()
	go func() { io.Copy(up, c); up.(*net.TCPConn).CloseWrite() }()
	io.Copy(c, up)
}

// Dial tries again, on a new connection, when the server resets one
// before answering its HELLO, and gets in.
func TestDialAgainWhenShed(t *testing.T) {
	s, _ := coreServer(t, nil)
	addr, accepted := resetFront(t, s.Addr(), helloAttempts-1)
	c, err := Dial(context.Background(), addr, WithTransport("tcp"))
	if err != nil {
		t.Fatalf("Dial with %d connections reset first: %v", helloAttempts-1, err)
	}
	defer c.Close()
	if err := c.Set(context.Background(), []byte("k"), []byte("v")); err != nil {
		t.Fatal(err)
	}
	if n := accepted.Load(); n != helloAttempts {
		t.Errorf("Dial made %d connections, want %d", n, helloAttempts)
	}
}

// Dial gives up after helloAttempts connections reset before HELLO,
// saying so.
func TestDialGivesUpWhenShedEachTime(t *testing.T) {
	s, _ := coreServer(t, nil)
	addr, accepted := resetFront(t, s.Addr(), 1<<30)
	_, err := Dial(context.Background(), addr, WithTransport("tcp"))
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "before answering HELLO") {
		t.Fatalf("Dial to a server that resets every connection: %v, want ErrClosed saying it was closed before HELLO", err)
	}
	if n := accepted.Load(); n != helloAttempts {
		t.Errorf("Dial made %d connections, want %d", n, helloAttempts)
	}
}
