package tcp

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"gotest.tools/v3/golden"
)

// goldenFrames pins the wire format: one frame of each op.
var goldenFrames = []header{
	{op: opSend, len: 5},
	{op: opWrite, len: 65536, wrid: 1<<32 | 3, addr: 0x7f0000001000, rkey: 0xdeadbeef},
	{op: opWriteImm, len: 4096, wrid: 2<<32 | 0, addr: 0x7f0000002000, rkey: 0x01020304, imm: 0xcafe},
	{op: opWriteAck, wrid: 2<<32 | 0},
	{op: opReadReq, len: 1 << 20, wrid: 5<<32 | 63, addr: 0x7f0000003000, rkey: 0xfeedface},
	{op: opReadResp, len: 1 << 20, wrid: 5<<32 | 63},
	{op: opError, len: 11, wrid: 1<<32 | 3, addr: 0x7f0000001ff6, rkey: 0xdeadbeef, imm: reasonLen},
}

func TestFrameGolden(t *testing.T) {
	var out strings.Builder
	for _, h := range goldenFrames {
		var b [headerSize]byte
		h.encode(b[:])
		got, err := decodeHeader(b[:])
		if err != nil {
			t.Fatalf("%s: %v", opName(h.op), err)
		}
		if got != h {
			t.Fatalf("%s: decoded %+v, want %+v", opName(h.op), got, h)
		}
		fmt.Fprintf(&out, "%-9s %s\n", opName(h.op), hex.EncodeToString(b[:]))
	}
	golden.Assert(t, out.String(), "frames.golden")
}

func TestDecodeHeaderRefuses(t *testing.T) {
	ok := func(h header) []byte { b := make([]byte, headerSize); h.encode(b); return b }
	cases := map[string][]byte{
		"short":         ok(header{op: opSend})[:31],
		"magic":         append([]byte{opSend, 0, 0, 0}, make([]byte, 28)...),
		"op 0":          ok(header{}),
		"op 8":          ok(header{op: 8}),
		"flags":         ok(header{op: opSend, flags: 2}),
		"ack len":       ok(header{op: opWriteAck, len: 1}),
		"send wrid":     ok(header{op: opSend, wrid: 1}),
		"resp addr":     ok(header{op: opReadResp, addr: 1}),
		"write imm":     ok(header{op: opWrite, imm: 1}),
		"error reason0": ok(header{op: opError}),
		"error reason7": ok(header{op: opError, imm: 7}),
	}
	for name, b := range cases {
		if _, err := decodeHeader(b); err == nil {
			t.Errorf("%s: accepted %x", name, b)
		}
	}
}

func FuzzFrameHeader(f *testing.F) {
	for _, h := range goldenFrames {
		b := make([]byte, headerSize)
		h.encode(b)
		f.Add(b)
	}
	f.Add([]byte("not a frame at all, but 32 bytes"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := decodeHeader(b)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		// Whatever decodes re-encodes to the same bytes.
		var again [headerSize]byte
		h.encode(again[:])
		if !bytes.Equal(again[:], b[:headerSize]) {
			t.Fatalf("decoded %+v re-encodes as %x, input %x", h, again, b[:headerSize])
		}
	})
}
