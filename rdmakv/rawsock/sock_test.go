//go:build linux

package rawsock

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// A write larger than the socket buffers waits for room and delivers
// every byte in order; a read waits for data, sees the peer's end as
// io.EOF, and a read deadline ends a wait as net.Conn's would.
func TestRawSock(t *testing.T) {
	a, b := tcpPair(t)
	ws, err := New(a)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := New(b)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 8<<20)
	for i := range want {
		want[i] = byte(i * 7)
	}
	done := make(chan error, 1)
	go func() {
		n, err := ws.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		done <- errors.Join(err, a.CloseWrite())
	}()
	got, err := io.ReadAll(rs) // until io.EOF
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(want))
	}

	c, d := tcpPair(t)
	rc, err := New(d)
	if err != nil {
		t.Fatal(err)
	}
	_ = d.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := rc.Read(make([]byte, 16)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past its deadline: %v", err)
	}
	_ = d.SetReadDeadline(time.Time{})
	c.Write([]byte("hi"))
	buf := make([]byte, 16)
	if n, err := rc.Read(buf); err != nil || string(buf[:n]) != "hi" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	d.Close()
	if _, err := rc.Read(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read of a closed socket: %v", err)
	}
}
