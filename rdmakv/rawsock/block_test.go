//go:build linux

package rawsock

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// blockPair is a BlockConn dialed to a listener and the accepted end.
func blockPair(t *testing.T, slack time.Duration) (*BlockConn, net.Conn) {
	t.Helper()
	nc, peer := dialPair(t, BlockDialer{Timeout: time.Second, Slack: slack}.DialContext)
	t.Cleanup(func() { nc.Close(); peer.Close() })
	c, ok := nc.(*BlockConn)
	if !ok {
		t.Fatalf("BlockDialer gave a %T, not a *BlockConn", nc)
	}
	if c.LocalAddr().String() != peer.RemoteAddr().String() || c.RemoteAddr().String() != peer.LocalAddr().String() {
		t.Fatalf("addresses %v -> %v, the peer sees %v -> %v", c.LocalAddr(), c.RemoteAddr(), peer.RemoteAddr(), peer.LocalAddr())
	}
	return c, peer
}

// wait is what fn returns, failing the test if it has not returned in 30 s.
func wait(t *testing.T, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatalf("%s still waits", what)
		return nil
	}
}

// A BlockConn is a net.Conn: bytes go both ways, the peer's end is io.EOF,
// and the errors of a closed BlockConn name the operation and are
// net.ErrClosed.
func TestBlockConnReadWrite(t *testing.T) {
	c, peer := blockPair(t, time.Second)
	checkReadWrite(t, c, peer)
	if err := c.Close(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("second Close: %v, want net.ErrClosed", err)
	}
}

// A Close ends a Read that waits in the kernel for data that never comes.
func TestBlockConnCloseEndsRead(t *testing.T) {
	c, _ := blockPair(t, time.Second)
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		close(started)
		_, err := c.Read(make([]byte, 16))
		done <- err
	}()
	<-started
	time.Sleep(20 * time.Millisecond) // let the read reach the kernel
	c.Close()
	err := wait(t, "a read of a closed BlockConn", func() error { return <-done })
	if !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read ended by Close: %v, want net.ErrClosed", err)
	}
}

// A read deadline fires no earlier than it says and as a net.Error
// timeout; one in the past fires at once; a zero deadline waits for data.
func TestBlockConnReadDeadlines(t *testing.T) {
	c, peer := blockPair(t, 10*time.Millisecond)
	buf := make([]byte, 16)
	read := func() error { _, err := c.Read(buf); return err }

	c.SetReadDeadline(time.Now())
	err := wait(t, "a read past its deadline", read)
	var ne net.Error
	if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past a deadline: %v, want a timeout", err)
	}

	at := time.Now().Add(50 * time.Millisecond)
	c.SetDeadline(at)
	if err := wait(t, "a read past its deadline", read); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past a deadline: %v", err)
	}
	if now := time.Now(); now.Before(at) {
		t.Fatalf("the deadline fired %v early", at.Sub(now))
	}

	// A later deadline re-arms the socket, whose timeout would end early.
	at = time.Now().Add(200 * time.Millisecond)
	c.SetReadDeadline(at)
	if err := wait(t, "a read past its deadline", read); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past a later deadline: %v", err)
	}
	if now := time.Now(); now.Before(at) {
		t.Fatalf("the later deadline fired %v early", at.Sub(now))
	}

	c.SetDeadline(time.Time{})
	go func() { time.Sleep(50 * time.Millisecond); peer.Write([]byte("late")) }()
	if err := wait(t, "a read with no deadline", read); err != nil || string(buf[:4]) != "late" {
		t.Fatalf("read with no deadline: %q, %v", buf[:4], err)
	}
}

// A write deadline ends a write the peer does not read: it returns what
// went, short of all, and a timeout.
func TestBlockConnWriteDeadline(t *testing.T) {
	c, _ := blockPair(t, 10*time.Millisecond)
	big := make([]byte, 64<<20) // more than the socket buffers on both ends hold
	c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	var n int
	err := wait(t, "a write past its deadline", func() (err error) { n, err = c.Write(big); return err })
	if !errors.Is(err, os.ErrDeadlineExceeded) || n >= len(big) {
		t.Fatalf("write to a peer that reads nothing: %d of %d bytes, %v; want a timeout, short", n, len(big), err)
	}
}

// With MaxWait, a deadline moved into the past ends a read that waits
// with none; without it, only the socket's timeout would.
func TestBlockConnMaxWait(t *testing.T) {
	c, _ := blockPair(t, time.Millisecond)
	c.maxWait = 5 * time.Millisecond
	done := make(chan error, 1)
	go func() { _, err := c.Read(make([]byte, 16)); done <- err }()
	time.Sleep(20 * time.Millisecond) // the read waits in the kernel, and wakes to look
	c.SetReadDeadline(time.Unix(1, 0))
	err := wait(t, "a read whose deadline moved into the past", func() error { return <-done })
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read after its deadline moved into the past: %v, want a timeout", err)
	}
}

// Writev writes every byte of both buffers, in order, and empties them;
// CloseWrite ends the peer's stream while reads still work.
func TestBlockConnWritevCloseWrite(t *testing.T) {
	c, peer := blockPair(t, time.Second)
	a, b := []byte("head:"), make([]byte, 8<<20) // more than one writev takes
	for i := range b {
		b[i] = byte(i % 251)
	}
	want := append(append([]byte(nil), a...), b...)
	got := make(chan []byte, 1)
	go func() { all, _ := io.ReadAll(peer); got <- all }()
	bufs := net.Buffers{a, b}
	n, err := c.Writev(&bufs)
	if err != nil || n != int64(len(want)) || len(bufs) != 0 {
		t.Fatalf("Writev: %d of %d bytes, %d buffers left, %v", n, len(want), len(bufs), err)
	}
	if err := c.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	var all []byte
	wait(t, "the peer's read to the end", func() error { all = <-got; return nil })
	if string(all) != string(want) {
		t.Fatalf("the peer read %d bytes, not the %d written in order", len(all), len(want))
	}
	peer.Write([]byte("back"))
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "back" {
		t.Fatalf("read after CloseWrite: %q, %v", buf, err)
	}
	three := net.Buffers{a, a, a}
	if _, err := c.Writev(&three); err == nil {
		t.Fatal("Writev of three buffers succeeded")
	}
}

// A dial to where nothing listens fails with the address; a network that
// is not TCP is refused.
func TestDialBlockingErrors(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dial := BlockDialer{Timeout: time.Second, Slack: time.Second}.DialContext
	if c, err := dial(t.Context(), "tcp", addr); err == nil || c != nil {
		t.Fatalf("dial to %s, where nothing listens: %v, %v; want an error and no conn", addr, c, err)
	}
	if _, err := dial(t.Context(), "udp", addr); err == nil {
		t.Fatal("dial over udp succeeded")
	}
}

// staleTimeout re-arms a socket only when its timeout would end a wait
// early, or later than the slack allows, or one is set where none is
// wanted or the reverse.
func TestStaleTimeout(t *testing.T) {
	s := time.Second
	cases := []struct {
		have, want time.Duration
		stale      bool
	}{
		{0, 0, false},
		{0, s, true},
		{s, 0, true},
		{s, s, false},
		{2 * s, s, false},  // ends at most the slack late
		{2*s + 1, s, true}, // later than the slack
		{s, s + 1, true},   // would end early
		{s, s / 2, false},  // a shorter wait within the slack
	}
	for _, c := range cases {
		if got := staleTimeout(c.have, c.want, s); got != c.stale {
			t.Errorf("staleTimeout(%v, %v) = %v, want %v", c.have, c.want, got, c.stale)
		}
	}
}

// A wait that outlasts the socket's timeout (MaxWait here) wakes to look
// at its deadline and waits again without allocating: a Read, Write or
// Writev that ends on its deadline allocates its error and nothing for
// the timeouts on the way, however many there were.
func TestBlockConnWaitsAllocateNothing(t *testing.T) {
	c, _ := blockPair(t, 0)
	c.maxWait = time.Millisecond
	buf, big := make([]byte, 16), make([]byte, 64<<20) // more than the socket buffers hold
	bufs := make(net.Buffers, 2)
	ops := map[string]func() error{
		"read":   func() error { _, err := c.Read(buf); return err },
		"write":  func() error { _, err := c.Write(big); return err },
		"writev": func() error { bufs = append(bufs[:0], buf, big); _, err := c.Writev(&bufs); return err },
	}
	for name, op := range ops {
		var err error
		// AllocsPerRun rounds down: the runtime's own rare allocations
		// (a thread for a P handed off during a wait) stay below one a
		// run, while one per timeout, of which each run has several,
		// would make it two or more.
		allocs := testing.AllocsPerRun(50, func() {
			c.SetDeadline(time.Now().Add(10 * time.Millisecond))
			err = op()
		})
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("%s from a peer that does nothing: %v, want a timeout", name, err)
		}
		if allocs != 1 {
			t.Errorf("a %s that ends on its deadline allocates %.0f times, want once (its error)", name, allocs)
		}
	}
}

// A dialed BlockConn's descriptor is blocking, so the runtime's poller
// leaves it alone, and it is the only one left on its socket: once it is
// closed, the peer reads the end.
func TestBlockConnOwnsItsSocket(t *testing.T) {
	c, peer := blockPair(t, time.Second)
	var flags int
	var cerr error
	if err := c.control(func(fd int) { flags, cerr = unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0) }); err != nil || cerr != nil {
		t.Fatal(err, cerr)
	}
	if flags&unix.O_NONBLOCK != 0 {
		t.Fatal("a BlockConn's descriptor is non-blocking")
	}
	c.Close()
	peer.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := peer.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("the peer of a closed BlockConn read %d, %v; want io.EOF", n, err)
	}
}
