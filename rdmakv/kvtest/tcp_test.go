package kvtest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	_ "github.com/kvbench/kvbench/rdmakv/tcp"
)

// netConn runs the suite with every socket read and written through
// net.Conn (Env.NetConn): make test runs the package both ways.
var netConn = flag.Bool("netconn", false, "read and write every socket through net.Conn (transport.Config.NetConn)")

func tcpEnv() Env {
	env := Env{Transport: "tcp", Addr: "127.0.0.1:0", MaxValue: 64 << 20, Clients: 32, NetConn: *netConn}
	if testing.Short() {
		env.MaxValue = 4 << 20
		env.Clients = 8
	}
	return env
}

func TestTCP(t *testing.T) {
	Run(t, tcpEnv())
}

// TestTCPDepth1 runs the suite with clients of depth 1, whose callers read
// their replies from the stream themselves instead of the transport's
// reader goroutine.
func TestTCPDepth1(t *testing.T) {
	env := tcpEnv()
	env.Depth = 1
	Run(t, env)
}

// TestTCPRawFrames writes garbage and truncated frames on plain TCP
// connections to the server port. Each such connection must be dropped by
// the server, while the server and well-behaved clients carry on.
func TestTCPRawFrames(t *testing.T) {
	env := tcpEnv()
	guard(t, caseTimeout, func() {
		s, good := startWithClient(t, env, serverConfig(env))
		mustSet(t, good, []byte("before"), pattern(9000, 1))

		// Record what a real client sends when it connects, to cut it short
		// later: the transport's framing stays the transport's business.
		opening := captureOpening(t, env, s.Addr())

		cases := []rawCase{
			{"zeros", make([]byte, 4096)},
			{"ones", bytes.Repeat([]byte{0xff}, 4096)},
			{"random", pattern(64<<10, 99)},
			{"tiny", []byte{1}},
		}
		// Well-formed frame headers (see rdmakv/tcp's frame format) that lie:
		// a SEND claiming 4 GiB must be refused without waiting for or
		// allocating it; one-sided ops on keys nobody granted.
		frames := []rawCase{
			{"send-4GiB", tcpFrame(1, 0xffffffff, 0, 0, 0)},
			{"write-unknown-rkey", append(tcpFrame(2, 16, 1, 0x1000, 0x12345678), make([]byte, 16)...)},
			{"read-unknown-rkey", tcpFrame(5, 16, 1, 0x1000, 0x12345678)},
			{"bad-frame-magic", func() []byte { b := tcpFrame(1, 8, 0, 0, 0); b[2] = 0; return append(b, make([]byte, 8)...) }()},
		}
		for _, f := range frames {
			// After a real opening, so the frames reach the frame decoder
			// past any connection setup.
			f.data = append(bytes.Clone(opening), f.data...)
			cases = append(cases, f)
		}
		for _, n := range []int{1, len(opening) / 2, len(opening) - 1} {
			if n > 0 && n < len(opening) {
				cases = append(cases, rawCase{"truncated-opening-" + itoa(n), opening[:n]})
			}
		}
		if len(opening) > 0 {
			// A valid opening followed by garbage.
			cases = append(cases, rawCase{"opening-then-garbage", append(bytes.Clone(opening), pattern(8192, 5)...)})
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				conn, err := net.Dial("tcp", s.Addr())
				if err != nil {
					t.Fatalf("dial server port: %v", err)
				}
				defer conn.Close()
				if _, err := conn.Write(tc.data); err != nil {
					t.Fatalf("write %d bytes: %v", len(tc.data), err)
				}
				// Half-close so a server waiting for the rest of a frame sees
				// EOF mid-frame.
				conn.(*net.TCPConn).CloseWrite()
				if err := waitDropped(conn, 10*time.Second); err != nil {
					t.Errorf("after %d bytes of %s: %v", len(tc.data), tc.name, err)
				}
				// The server and the good client carry on.
				mustGetEqual(t, good, []byte("before"), pattern(9000, 1))
				roundTrip(t, good, []byte("during-"+tc.name), 5000, 3, 0)
			})
		}
		// Garbage without half-close: the server must drop it by itself.
		t.Run("garbage-kept-open", func(t *testing.T) {
			conn, err := net.Dial("tcp", s.Addr())
			if err != nil {
				t.Fatalf("dial server port: %v", err)
			}
			defer conn.Close()
			conn.Write(bytes.Repeat([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), 200))
			if err := waitDropped(conn, 10*time.Second); err != nil {
				t.Errorf("HTTP request on the server port: %v", err)
			}
		})
		after := dial(t, env, s.Addr())
		mustGetEqual(t, after, []byte("before"), pattern(9000, 1))
		roundTrip(t, after, []byte("after"), 20000, 4, rdmakv.Rendezvous)
	})
}

// rawCase is bytes written on a plain TCP connection to the server.
type rawCase struct {
	name string
	data []byte
}

// tcpFrame builds a TCP transport frame header (rdmakv/tcp/frame.go).
func tcpFrame(op byte, n uint32, wrid, addr uint64, rkey uint32) []byte {
	b := make([]byte, 32)
	b[0] = op
	binary.LittleEndian.PutUint16(b[2:], 0x766b)
	binary.LittleEndian.PutUint32(b[4:], n)
	binary.LittleEndian.PutUint64(b[8:], wrid)
	binary.LittleEndian.PutUint64(b[16:], addr)
	binary.LittleEndian.PutUint32(b[24:], rkey)
	return b
}

// waitDropped reads until the peer closes the connection. It fails if the
// connection is still open at the deadline (a hang guard, not a timing).
func waitDropped(conn net.Conn, d time.Duration) error {
	conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return errors.New("server kept the connection open")
	}
	return nil // EOF or reset: dropped
}

// captureOpening runs a real Dial through a recording proxy and returns the
// bytes the client sent before its first reply arrived: the transport's
// connection setup and the protocol HELLO.
func captureOpening(t *testing.T, env Env, addr string) []byte {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("proxy listen: %v", err)
	}
	defer ln.Close()
	var mu sync.Mutex
	var sent bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		in, err := ln.Accept()
		if err != nil {
			return
		}
		defer in.Close()
		out, err := net.Dial("tcp", addr)
		if err != nil {
			return
		}
		defer out.Close()
		go func() {
			io.Copy(in, out)
			in.Close()
		}()
		buf := make([]byte, 64<<10)
		for {
			n, err := in.Read(buf)
			mu.Lock()
			sent.Write(buf[:n])
			mu.Unlock()
			if _, werr := out.Write(buf[:n]); werr != nil || err != nil {
				return
			}
		}
	}()
	c, err := dialErr(env, ln.Addr().String())
	if err != nil {
		t.Fatalf("Dial through recording proxy: %v", err)
	}
	mu.Lock()
	opening := bytes.Clone(sent.Bytes())
	mu.Unlock()
	c.Close()
	<-done
	if len(opening) == 0 {
		t.Fatalf("recorded no bytes from a successful Dial")
	}
	return opening
}
