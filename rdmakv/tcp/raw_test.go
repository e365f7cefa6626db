package tcp

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Bad bytes on one socket close that connection with the fault named; the
// listener keeps serving.
func TestRawSocketGarbage(t *testing.T) {
	srv := listen(t, smallCfg())
	remote := register(t, srv.ln, 4096, transport.AccessRemoteWrite)
	cases := []struct {
		name  string
		bytes []byte
		half  bool // close our write side after sending
		want  string
	}{
		{"text", []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n......"), false, "magic"},
		{"unknown op", encodeFrame(header{op: 0x42}, nil), false, "unknown frame op"},
		{"flags set", encodeFrame(header{op: opSend, flags: 1}, nil), false, "flags"},
		{"stray field", encodeFrame(header{op: opSend, rkey: 5}, nil), false, "rkey"},
		{"truncated header", encodeFrame(header{op: opSend, len: 4}, nil)[:20], true, "truncated frame header"},
		{"truncated payload", encodeFrame(header{op: opSend, len: 100}, make([]byte, 10)), true, "truncated frame"},
		{"truncated write", encodeFrame(header{op: opWrite, wrid: 1, len: 100, addr: remote.Addr(), rkey: remote.RKey()}, make([]byte, 10)), true, "truncated frame"},
		{"stray ack", encodeFrame(header{op: opWriteAck, wrid: 77}, nil), false, "unknown wrid"},
		{"stray read response", encodeFrame(header{op: opReadResp, wrid: 3, len: 1}, []byte{1}), false, "unknown wrid"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nc := rawDial(t, srv.ln.Addr())
			_, rec := srv.accepted(t)
			if _, err := nc.Write(tc.bytes); err != nil {
				t.Fatal(err)
			}
			if tc.half {
				_ = nc.CloseWrite()
			}
			// The answer is an ERROR frame saying the frame was malformed.
			_ = nc.SetReadDeadline(time.Now().Add(hangGuard))
			var b [headerSize]byte
			if _, err := io.ReadFull(nc, b[:]); err != nil {
				t.Fatalf("no ERROR frame: %v", err)
			}
			if h, err := decodeHeader(b[:]); err != nil || h.op != opError || h.imm != reasonProtocol {
				t.Fatalf("server answered %x (%v)", b, err)
			}
			_ = nc.Close()
			err := rec.waitClosed(t)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Closed got %v, want an error naming %q", err, tc.want)
			}
			// The listener still accepts and serves.
			next := srv.pair(t, smallCfg())
			if err := next.cli.Send([]byte("ok"), nil, nil); err != nil {
				t.Fatal(err)
			}
			if m := next.srec.next(t); !bytes.Equal(m.Data, []byte("ok")) {
				t.Fatalf("got %q", m.Data)
			} else {
				m.Release()
			}
		})
	}
}
