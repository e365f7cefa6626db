package tcp

import (
	"bytes"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// holder is a Handler whose Deliver hands each message to the test and
// returns only when the test says so.
type holder struct {
	msgs    chan []byte
	proceed chan struct{}
}

func newHolder() *holder {
	return &holder{msgs: make(chan []byte, 16), proceed: make(chan struct{})}
}

func (h *holder) Deliver(c transport.Conn, m *transport.Message) {
	h.msgs <- bytes.Clone(m.Data)
	m.Release()
	<-h.proceed
}

func (h *holder) Closed(transport.Conn, error) {}

// paths runs fn once for each path to the socket this system has, with
// cfg on it: raw system calls (Linux), and net.Conn.
func paths(t *testing.T, cfg transport.Config, fn func(t *testing.T, cfg transport.Config)) {
	if rawSockets {
		t.Run("raw", func(t *testing.T) { fn(t, cfg) })
	}
	cfg.NetConn = true
	t.Run("netconn", func(t *testing.T) { fn(t, cfg) })
}

// listenHeld listens with accepted connections handed to the test before
// their reader starts: accept returns only once the test sends the
// handler on start.
func listenHeld(t *testing.T, cfg transport.Config) (transport.Listener, <-chan *conn, chan<- transport.Handler) {
	t.Helper()
	conns, start := make(chan *conn, 1), make(chan transport.Handler)
	ln, err := network{}.Listen("127.0.0.1:0", cfg, func(c transport.Conn) transport.Handler {
		conns <- c.(*conn)
		return <-start
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { close(start); ln.Close() })
	return ln, conns, start
}

// sendFrame is a SEND frame of n bytes of b.
func sendFrame(b byte, n int) []byte {
	return encodeFrame(header{op: opSend, len: uint32(n)}, bytes.Repeat([]byte{b}, n))
}

// awaitQueued waits until c has n bytes unread: in its socket on the raw
// path, read ahead on the net.Conn path.
func awaitQueued(t *testing.T, c *conn, n int) {
	t.Helper()
	var hb [headerSize]byte
	for deadline := time.Now().Add(hangGuard); ; time.Sleep(time.Millisecond) {
		pk, err := c.inq.Peek(hb[:])
		if err == nil && pk.Queued == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes unread (%v), want %d", pk.Queued, err, n)
		}
	}
}

// An accepted connection tells a peer that has sent a whole frame from
// one that has sent nothing or part of one, while its handler holds the
// frame and, on the raw path, before its reader runs; it reads no byte
// past the frame it delivers; after transport.SpokenMessages frames it
// reads ahead again. On the net.Conn path a frame is seen once the reader
// has read it ahead.
func TestSpoken(t *testing.T) {
	paths(t, smallCfg(), func(t *testing.T, cfg transport.Config) {
		ln, conns, start := listenHeld(t, cfg)
		peer := rawDial(t, ln.Addr())
		c := <-conns
		if c.Spoken() {
			t.Fatal("Spoken with nothing sent")
		}
		h := newHolder()
		if cfg.NetConn {
			start <- h // what the reader has not read is not seen
		}
		first := sendFrame('a', 100)
		peer.Write(first[:headerSize+50])
		awaitQueued(t, c, headerSize+50)
		if c.Spoken() {
			t.Fatal("Spoken with half a frame sent")
		}
		peer.Write(first[headerSize+50:])
		if !cfg.NetConn {
			awaitQueued(t, c, len(first))
			if !c.Spoken() {
				t.Fatal("not Spoken with a whole frame queued and the reader not started")
			}
			start <- h
		}
		await(t, h.msgs, "the first frame was not delivered")
		if !c.Spoken() {
			t.Fatal("not Spoken while the handler holds the frame")
		}
		second, third := sendFrame('b', 10), sendFrame('c', 20)
		peer.Write(append(bytes.Clone(second), third...))
		if !cfg.NetConn { // the reader, in Deliver, reads nothing ahead
			awaitQueued(t, c, len(second)+len(third))
		}
		h.proceed <- struct{}{}
		if m := await(t, h.msgs, "the second frame was not delivered"); !bytes.Equal(m, second[headerSize:]) {
			t.Fatalf("second delivery %q", m)
		}
		awaitQueued(t, c, len(third)) // the reader took the second frame and nothing of the third
		h.proceed <- struct{}{}
		if m := await(t, h.msgs, "the third frame was not delivered"); !bytes.Equal(m, third[headerSize:]) {
			t.Fatalf("third delivery %q", m)
		}
		if c.Spoken() || c.guarded {
			t.Fatalf("past %d frames: Spoken %v, guarded %v; want neither", transport.SpokenMessages, c.Spoken(), c.guarded)
		}
		h.proceed <- struct{}{}
	})
}

// ReadAhead ends the guard once the frame being delivered is handled.
func TestSpokenReadAhead(t *testing.T) {
	paths(t, smallCfg(), func(t *testing.T, cfg transport.Config) {
		ln, conns, start := listenHeld(t, cfg)
		peer := rawDial(t, ln.Addr())
		c := <-conns
		h := newHolder()
		start <- h
		peer.Write(sendFrame('a', 10))
		await(t, h.msgs, "the first frame was not delivered")
		c.ReadAhead()
		if c.Spoken() {
			t.Fatal("Spoken after ReadAhead")
		}
		h.proceed <- struct{}{}
		peer.Write(append(sendFrame('d', 5), sendFrame('e', 6)...))
		for _, want := range []string{"ddddd", "eeeeee"} {
			if m := await(t, h.msgs, "a frame after ReadAhead was not delivered"); string(m) != want {
				t.Fatalf("delivered %q, want %q", m, want)
			}
			if c.guarded {
				t.Fatal("still guarded after ReadAhead")
			}
			h.proceed <- struct{}{}
		}
	})
}

// A first frame larger than a guarded connection waits for whole ends the
// guard: it is delivered as usual.
func TestSpokenLargeFrameEndsGuard(t *testing.T) {
	paths(t, transport.Config{MaxMessage: 2 * guardMax}, func(t *testing.T, cfg transport.Config) {
		ln, conns, start := listenHeld(t, cfg)
		peer := rawDial(t, ln.Addr())
		c := <-conns
		big := sendFrame('x', 3*guardMax/2)
		peer.Write(big[:guardMax])
		h := newHolder()
		start <- h
		peer.Write(big[guardMax:])
		if m := await(t, h.msgs, "the large frame was not delivered"); !bytes.Equal(m, big[headerSize:]) {
			t.Fatalf("delivered %d bytes, not the %d sent", len(m), len(big)-headerSize)
		}
		if c.Spoken() {
			t.Fatal("Spoken after the guard ended")
		}
		h.proceed <- struct{}{}
	})
}

// Reset ends the peer's connection with a reset and leaves nothing in
// TIME_WAIT: the peer dials again from the same port and gets in. A
// connection the AcceptFunc refuses is reset too.
func TestResetLeavesNoTimeWait(t *testing.T) {
	s := listen(t, smallCfg())
	laddr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: freePort(t)}
	d := net.Dialer{LocalAddr: laddr, Control: func(_, _ string, rc syscall.RawConn) error {
		var err error
		rc.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1) })
		return err
	}}
	for round := range 2 {
		peer, err := d.Dial("tcp", s.ln.Addr())
		if err != nil {
			t.Fatalf("dial %d from port %d: %v", round+1, laddr.Port, err)
		}
		sc, _ := s.accepted(t)
		if err := sc.(transport.Resetter).Reset(); err != nil {
			t.Fatal(err)
		}
		peer.SetReadDeadline(time.Now().Add(hangGuard))
		if _, err := peer.Read(make([]byte, 1)); !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("the peer of a reset connection read %v, want ECONNRESET", err)
		}
		peer.Close()
		if st := tcpStates(t, s.ln.Addr(), laddr.Port); strings.Contains(st, "06") {
			t.Fatalf("the server's side is in TIME_WAIT (states %s)", st)
		}
	}

	ln, err := network{}.Listen("127.0.0.1:0", withMode(smallCfg()), func(transport.Conn) transport.Handler { return nil })
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer, err := net.Dial("tcp", ln.Addr())
	if err == nil { // else reset before the connect returned
		defer peer.Close()
		peer.SetReadDeadline(time.Now().Add(hangGuard))
		_, err = peer.Read(make([]byte, 1))
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("the peer of a refused connection got %v, want ECONNRESET", err)
	}
}

// freePort is a loopback port nothing uses now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// tcpStates lists the states (hex, as /proc/net/tcp has them) of the
// sockets from server to the peer's port.
func tcpStates(t *testing.T, server string, peerPort int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/net/tcp")
	if errors.Is(err, os.ErrNotExist) {
		t.Skip("no /proc/net/tcp to read the server's sockets' states from")
	}
	if err != nil {
		t.Fatal(err)
	}
	_, sp, _ := net.SplitHostPort(server)
	port, _ := strconv.Atoi(sp)
	local, remote := ":"+strings.ToUpper(strconv.FormatInt(int64(port), 16)), ":"+strings.ToUpper(strconv.FormatInt(int64(peerPort), 16))
	var states []string
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) > 3 && strings.HasSuffix(f[1], local) && strings.HasSuffix(f[2], remote) {
			states = append(states, f[3])
		}
	}
	return strings.Join(states, ",")
}
