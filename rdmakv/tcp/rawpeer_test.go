package tcp

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// A raw peer is the far end of a connection played by the test on a plain
// socket, to send what the transport never would or to fall silent.

// rawDial opens a plain TCP socket, for feeding a listener bad frames.
func rawDial(t testing.TB, addr string) *net.TCPConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, hangGuard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	return nc.(*net.TCPConn)
}

// encodeFrame is h and its payload as they travel.
func encodeFrame(h header, payload []byte) []byte {
	b := make([]byte, headerSize, headerSize+len(payload))
	h.encode(b)
	return append(b, payload...)
}

// dialRawPeer dials a raw peer with cfg: the test holds the peer's
// socket, the transport's end and its recorder.
func dialRawPeer(t testing.TB, cfg transport.Config) (transport.Conn, *recorder, net.Conn) {
	t.Helper()
	ln := rawListen(t)
	c, rec := dial(t, ln.Addr().String(), cfg)
	return c, rec, acceptRaw(t, ln)
}

// rawListen listens on a plain socket, for a raw peer.
func rawListen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return ln
}

// acceptRaw accepts a raw peer's socket. Its deadline makes a peer the
// transport leaves waiting fail the test instead of hanging it.
func acceptRaw(t testing.TB, ln net.Listener) net.Conn {
	t.Helper()
	nc, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(hangGuard))
	return nc
}

// readFrameHeader reads the next frame header the transport sent a raw peer.
func readFrameHeader(t testing.TB, nc net.Conn) header {
	t.Helper()
	var b [headerSize]byte
	if _, err := io.ReadFull(nc, b[:]); err != nil {
		t.Fatal(err)
	}
	h, err := decodeHeader(b[:])
	if err != nil {
		t.Fatalf("%v (bytes %x, len %d)", err, b, binary.LittleEndian.Uint32(b[4:]))
	}
	return h
}
