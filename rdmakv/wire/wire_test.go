package wire

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/golden"
)

func sampleFrames() map[string][]byte {
	var hello [HelloBodySize]byte
	(&HelloBody{RecvSize: 4152, Threshold: 4096, Depth: 64}).Encode(hello[:])
	var lim [LimitsSize]byte
	(&Limits{PoolSize: 256 << 20, MaxValue: 64 << 20, MaxEager: 65536, MaxKey: 1024, LeaseMillis: 10000, MaxInflight: 256}).Encode(lim[:])
	challenge := bytes.Repeat([]byte{0xc4}, ChallengeSize)
	proof := Proof([]byte("golden shared secret, 32 bytes!"), challenge, hello[:])
	var stats [StatsBodySize]byte
	(&StatsBody{CPUUserNs: 1_500_000_000, CPUSysNs: 250_000_000, Conns: 3, Keys: 1000, PoolUsed: 128 << 10,
		PoolSize: 256 << 20}).Encode(stats[:])
	return map[string][]byte{
		"hello":         AppendFrame(nil, Header{Type: Hello, ReqID: 1}, nil, hello[:]),
		"auth_required": AppendFrame(nil, Header{Type: HelloReply, Status: AuthRequired, ReqID: 1}, nil, challenge),
		"hello_proof":   AppendFrame(nil, Header{Type: Hello, ReqID: 2}, nil, append(hello[:], proof[:]...)),
		"auth_failed":   AppendFrame(nil, Header{Type: HelloReply, Status: AuthFailed, ReqID: 2}, nil, nil),
		"hello_reply":   AppendFrame(nil, Header{Type: HelloReply, ReqID: 1}, nil, lim[:]),
		"set":           AppendFrame(nil, Header{Type: Set, ReqID: 0x00010002}, []byte("key"), []byte("value")),
		"set_reply":     AppendFrame(nil, Header{Type: SetReply, ReqID: 7, Version: 42}, nil, nil),
		"get":           AppendFrame(nil, Header{Type: Get, ReqID: 8, Aux: 4096}, []byte("k"), nil),
		"get_rdv": AppendFrame(nil, Header{Type: GetReplyRdv, ReqID: 9, Addr: 0x7f0000001000, Length: 1 << 20,
			Version: 3, RKey: 0xdeadbeef, Token: 5, Aux: 10000, Credit: 40}, nil, nil),
		"get_rdv_peer_inv": AppendFrame(nil, Header{Type: GetReplyRdv, Flags: FlagPeerInvalidate, ReqID: 9,
			Addr: 0x7f0000001000, Length: 1 << 20, Version: 3, RKey: 0xdeadbeef, Token: 5, Aux: 10000}, nil, nil),
		"get_peer_inv": AppendFrame(nil, Header{Type: Get, Flags: FlagPeerInvalidate, ReqID: 8, Aux: 4096}, []byte("k"), nil),
		"not_found":    AppendFrame(nil, Header{Type: GetReplyInline, Status: NotFound, ReqID: 10}, nil, nil),
		"release":      AppendFrame(nil, Header{Type: GetRelease, Token: 5}, nil, nil),
		"set_fin":      AppendFrame(nil, Header{Type: SetFin, ReqID: 11, Token: 6}, nil, nil),
		"set_rdv_req":  AppendFrame(nil, Header{Type: SetRdvReq, ReqID: 12, Length: 1 << 20}, []byte("big"), nil),
		"set_rdv_grant": AppendFrame(nil, Header{Type: SetRdvGrant, ReqID: 12, Addr: 0x7f0000200000, Length: 1 << 20,
			RKey: 0x01020304, Token: 7, Aux: 10000}, nil, nil),
		"no_space":     AppendFrame(nil, Header{Type: SetRdvGrant, Status: NoSpace, ReqID: 13}, nil, nil),
		"delete":       AppendFrame(nil, Header{Type: Delete, ReqID: 14}, []byte("k"), nil),
		"delete_reply": AppendFrame(nil, Header{Type: DeleteReply, Status: NotFound, ReqID: 14}, nil, nil),
		"get_traced":   AppendFrame(nil, Header{Type: Get, Flags: FlagTrace, ReqID: 15, Aux: 4096}, []byte("k"), nil),
		"get_reply_traced": AppendFrame(nil, Header{Type: GetReplyInline, Flags: FlagTrace, ReqID: 15, Version: 2,
			Server: 1500}, nil, []byte("v")),
		"set_rdv_grant_traced": AppendFrame(nil, Header{Type: SetRdvGrant, Flags: FlagTrace | FlagPeerInvalidate,
			ReqID: 16, Addr: 0x7f0000200000, Length: 1 << 20, RKey: 0x01020304, Token: 8, Aux: 10000, Server: 98765},
			nil, nil),
		"stats":       AppendFrame(nil, Header{Type: Stats, ReqID: 17}, nil, nil),
		"stats_reply": AppendFrame(nil, Header{Type: StatsReply, ReqID: 17}, nil, stats[:]),
		"credit":      AppendFrame(nil, Header{Type: Credit, Credit: 0x01020304}, nil, nil),
	}
}

func TestGolden(t *testing.T) {
	for name, b := range sampleFrames() {
		golden.Assert(t, hex.Dump(b), name+".golden")
	}
}

// TestLayout pins the documented offsets independently of the golden files.
func TestLayout(t *testing.T) {
	b := AppendFrame(nil, Header{Type: GetReplyRdv, Status: OK, ReqID: 0x04030201, Addr: 0x1122334455667788,
		Length: 0x99, Version: 0xaa, RKey: 0xbbccddee, Token: 0x0f0e0d0c, Aux: 0x77, Credit: 0x31323334}, nil, nil)
	want := "4b56060700000000" + "0102030400000000" + "8877665544332211" + "9900000000000000" +
		"aa00000000000000" + "eeddccbb" + "0c0d0e0f" + "77000000" + "34333231"
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("layout\n got %s\nwant %s", got, want)
	}
	b = AppendFrame(nil, Header{Type: SetFin, ReqID: 1, Length: 0x55, Token: 0x66}, nil, nil)
	want = "4b56060b00000000" + "0100000000000000" + "5500000000000000" + "66000000"
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("SET_FIN layout\n got %s\nwant %s", got, want)
	}
	// A traced reply ends its header with the server's time.
	b = AppendFrame(nil, Header{Type: DeleteReply, Flags: FlagTrace, ReqID: 2, Credit: 9, Server: 0x01020304}, nil, nil)
	want = "4b56060d00020000" + "0200000000000000" + "09000000" + "04030201"
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("traced DELETE_REPLY layout\n got %s\nwant %s", got, want)
	}
	// A STATS_REPLY is the base and the body's six u64s in order.
	var body [StatsBodySize]byte
	(&StatsBody{CPUUserNs: 0x0102, CPUSysNs: 0x0304, Conns: 5, Keys: 6, PoolUsed: 7, PoolSize: 0x1122334455667788}).Encode(body[:])
	b = AppendFrame(nil, Header{Type: StatsReply, ReqID: 3, Credit: 0xa}, nil, body[:])
	want = "4b56060f00000000" + "0300000030000000" + "0a000000" + "0201000000000000" + "0403000000000000" +
		"0500000000000000" + "0600000000000000" + "0700000000000000" + "8877665544332211"
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("STATS_REPLY layout\n got %s\nwant %s", got, want)
	}
}

// TestHeaderLens pins each type's header size (docs/PROTOCOL.md's table)
// and that exactly the fields a type uses travel: every optional field is
// set before encoding, and only the type's come back.
func TestHeaderLens(t *testing.T) {
	want := map[Type]int{
		Hello: 16, HelloReply: 20, Set: 16, SetReply: 28, Get: 20, GetReplyInline: 28, GetReplyRdv: 56,
		GetRelease: 20, SetRdvReq: 24, SetRdvGrant: 48, SetFin: 28, Delete: 16, DeleteReply: 20,
		Stats: 16, StatsReply: 20, Credit: 20,
	}
	all := Header{Addr: 1, Length: 2, Version: 3, RKey: 4, Token: 5, Aux: 6, Credit: 7}
	for ty := Type(1); ty.Valid(); ty++ {
		if HeaderLen(ty) != want[ty] {
			t.Errorf("%s: header is %d bytes, want %d", ty, HeaderLen(ty), want[ty])
		}
		h := all
		h.Type = ty
		var b [MaxHeaderSize]byte
		if n := h.Encode(b[:]); n != want[ty] {
			t.Errorf("%s: Encode wrote %d bytes, want %d", ty, n, want[ty])
		}
		// decode into a header with every field set: fields the type
		// does not carry must come out zero.
		got := all
		got.decode(b[:])
		f := fields[ty]
		keep := func(bit field, v uint64) uint64 {
			if f&bit != 0 {
				return v
			}
			return 0
		}
		exp := Header{Type: ty, Addr: keep(fAddr, 1), Length: keep(fLength, 2), Version: keep(fVersion, 3),
			RKey: uint32(keep(fRKey, 4)), Token: uint32(keep(fToken, 5)), Aux: uint32(keep(fAux, 6)),
			Credit: uint32(keep(fCredit, 7))}
		if got != exp {
			t.Errorf("%s: decoded %+v, want %+v", ty, got, exp)
		}
	}
	if HeaderLen(0) != BaseSize || HeaderLen(99) != BaseSize {
		t.Error("an invalid type's header is not the base")
	}
	if HeaderLen(GetReplyRdv)+ServerSize != MaxHeaderSize {
		t.Error("MaxHeaderSize is not the longest header, a traced GET_REPLY_RDV")
	}
	for ty := Type(1); ty.Valid(); ty++ {
		h := Header{Type: ty, Flags: FlagTrace, Server: 7}
		var b [MaxHeaderSize]byte
		want := HeaderLen(ty)
		if ty.IsReply() {
			want += ServerSize
		}
		if n := h.Encode(b[:]); n != want || h.Len() != want {
			t.Errorf("traced %s: Encode wrote %d bytes, Len says %d, want %d", ty, n, h.Len(), want)
		}
		var got Header
		got.decode(b[:])
		if ty.IsReply() != (got.Server == 7) {
			t.Errorf("traced %s: decoded Server %d", ty, got.Server)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for name, b := range sampleFrames() {
		f, err := Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		again := AppendFrame(nil, f.Header, f.Key, f.Value)
		if !bytes.Equal(again, b) {
			t.Errorf("%s: re-encoding differs", name)
		}
	}
	f, err := Decode(sampleFrames()["set"])
	if err != nil || string(f.Key) != "key" || string(f.Value) != "value" || f.ReqID != 0x00010002 {
		t.Fatalf("set decoded as %+v, %v", f, err)
	}
	hb, err := DecodeHello(mustDecode(t, sampleFrames()["hello"]).Value)
	if err != nil || hb != (HelloBody{RecvSize: 4152, Threshold: 4096, Depth: 64}) {
		t.Fatalf("hello body %+v, %v", hb, err)
	}
	lim, err := DecodeLimits(mustDecode(t, sampleFrames()["hello_reply"]).Value)
	if err != nil || lim.MaxEager != 65536 || lim.PoolSize != 256<<20 || lim.MaxInflight != 256 {
		t.Fatalf("limits %+v, %v", lim, err)
	}
	st, err := DecodeStats(mustDecode(t, sampleFrames()["stats_reply"]).Value)
	if err != nil || st.CPUUserNs != 1_500_000_000 || st.CPUSysNs != 250_000_000 || st.Keys != 1000 || st.PoolSize != 256<<20 {
		t.Fatalf("stats body %+v, %v", st, err)
	}
}

// TestStatsBody: every field of a STATS_REPLY body survives a round trip,
// and a body of any other length is refused naming its length.
func TestStatsBody(t *testing.T) {
	want := StatsBody{CPUUserNs: 1, CPUSysNs: 1 << 40, Conns: 3, Keys: 1<<64 - 1, PoolUsed: 5, PoolSize: 6}
	var b [StatsBodySize + 1]byte
	want.Encode(b[:])
	if got, err := DecodeStats(b[:StatsBodySize]); err != nil || got != want {
		t.Fatalf("DecodeStats = %+v, %v; want %+v", got, err, want)
	}
	for _, n := range []int{0, StatsBodySize - 1, StatsBodySize + 1} {
		_, err := DecodeStats(b[:n])
		if !errors.Is(err, ErrLength) || !strings.Contains(err.Error(), strconv.Itoa(n)+" bytes") {
			t.Errorf("DecodeStats of %d bytes: %v, want ErrLength naming the length", n, err)
		}
	}
}

func mustDecode(t *testing.T, b []byte) Frame {
	t.Helper()
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestDecodeRejects(t *testing.T) {
	good := sampleFrames()["set"]
	mut := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name string
		b    []byte
		want error
	}{
		{"empty", nil, ErrShort},
		{"short", good[:BaseSize-1], ErrShort},
		{"short for its type", sampleFrames()["get_rdv"][:HeaderLen(GetReplyRdv)-1], ErrShort},
		{"magic", mut(func(b []byte) []byte { b[0] = 'X'; return b }), ErrMagic},
		{"version", mut(func(b []byte) []byte { b[2] = 9; return b }), ErrVersion},
		{"version1", mut(func(b []byte) []byte { b[2] = 1; return b }), ErrVersion}, // before FlagPeerInvalidate
		{"version2", mut(func(b []byte) []byte { b[2] = 2; return b }), ErrVersion}, // the fixed 56-byte header
		{"version3", mut(func(b []byte) []byte { b[2] = 3; return b }), ErrVersion}, // before FlagTrace
		{"version4", mut(func(b []byte) []byte { b[2] = 4; return b }), ErrVersion}, // before STATS
		{"type0", mut(func(b []byte) []byte { b[3] = 0; return b }), ErrType},
		{"type99", mut(func(b []byte) []byte { b[3] = 99; return b }), ErrType},
		{"status", mut(func(b []byte) []byte { b[4] = 200; return b }), ErrStatus},
		{"request with status", mut(func(b []byte) []byte { b[4] = byte(NotFound); return b }), ErrField},
		{"unknown flag", mut(func(b []byte) []byte { b[5] = 4; return b }), ErrReserved},
		{"trace flag on a release", AppendFrame(nil, Header{Type: GetRelease, Token: 1, Flags: FlagTrace}, nil, nil), ErrField},
		{"trace flag on a HELLO_REPLY", AppendFrame(nil, Header{Type: HelloReply, Status: NotFound, Flags: FlagTrace},
			nil, nil), ErrField},
		{"traced reply without its server time", sampleFrames()["set_rdv_grant_traced"][:HeaderLen(SetRdvGrant)], ErrShort},
		{"peer-invalidate flag on an eager set", mut(func(b []byte) []byte { b[5] = 1; return b }), ErrField},
		{"peer-invalidate flag on a release", AppendFrame(nil,
			Header{Type: GetRelease, Token: 1, Flags: FlagPeerInvalidate}, nil, nil), ErrField},
		{"peer-invalidate flag on an error reply", AppendFrame(nil,
			Header{Type: GetReplyRdv, Status: NoSpace, Flags: FlagPeerInvalidate}, nil, nil), ErrField},
		{"truncated", good[:len(good)-1], ErrLength},
		{"trailing", append(append([]byte(nil), good...), 0), ErrLength},
		{"key too long for frame", mut(func(b []byte) []byte { b[6] = 0xff; return b }), ErrLength},
		{"huge value_len", mut(func(b []byte) []byte { b[15] = 0xff; return b }), ErrLength},
		{"get with value", AppendFrame(nil, Header{Type: Get}, []byte("k"), []byte("v")), ErrField},
		{"reply with key", AppendFrame(nil, Header{Type: SetReply}, []byte("k"), nil), ErrField},
		{"release token 0", AppendFrame(nil, Header{Type: GetRelease}, nil, nil), ErrField},
		{"hello body size", AppendFrame(nil, Header{Type: Hello}, nil, make([]byte, 3)), ErrLength},
		{"stats with key", AppendFrame(nil, Header{Type: Stats}, []byte("k"), nil), ErrField},
		{"stats with value", AppendFrame(nil, Header{Type: Stats}, nil, []byte("v")), ErrField},
		{"traced stats", AppendFrame(nil, Header{Type: Stats, Flags: FlagTrace}, nil, nil), ErrField},
		{"stats reply without body", AppendFrame(nil, Header{Type: StatsReply}, nil, nil), ErrLength},
		{"stats reply body short", AppendFrame(nil, Header{Type: StatsReply}, nil, make([]byte, StatsBodySize-1)), ErrLength},
		{"stats reply body long", AppendFrame(nil, Header{Type: StatsReply}, nil, make([]byte, StatsBodySize+1)), ErrLength},
		{"refused stats reply with body", AppendFrame(nil, Header{Type: StatsReply, Status: Threshold}, nil,
			make([]byte, StatsBodySize)), ErrLength},
		{"stats reply with key", AppendFrame(nil, Header{Type: StatsReply}, []byte("k"), make([]byte, StatsBodySize)), ErrField},
		{"traced stats reply", AppendFrame(nil, Header{Type: StatsReply, Flags: FlagTrace}, nil,
			make([]byte, StatsBodySize)), ErrField},
	}
	for _, c := range cases {
		if _, err := Decode(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.want)
		}
	}
}

func TestNames(t *testing.T) {
	for ty := Type(1); ty.Valid(); ty++ {
		if strings.HasPrefix(ty.String(), "TYPE(") {
			t.Errorf("type %d has no name", ty)
		}
	}
	if Type(0).String() != "TYPE(0)" || Status(99).String() != "STATUS(99)" || NotFound.String() != "NOT_FOUND" {
		t.Error("bad names")
	}
}

func TestDecodeAllocs(t *testing.T) {
	b := sampleFrames()["set"]
	if n := testing.AllocsPerRun(100, func() { _, _ = Decode(b) }); n != 0 {
		t.Errorf("Decode allocates %v times", n)
	}
}

func FuzzDecode(f *testing.F) {
	for _, b := range sampleFrames() {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := Decode(b)
		if err != nil {
			return
		}
		if fr.Len()+len(fr.Key)+len(fr.Value) != len(b) {
			t.Fatalf("views do not cover the frame")
		}
		// Decoding into a Frame that held another message gives the
		// same frame: nothing of the old one survives.
		reused := Frame{Header: Header{Type: SetRdvGrant, Status: NoSpace, Flags: FlagPeerInvalidate, KeyLen: 9,
			ReqID: 9, ValueLen: 9, Addr: 9, Length: 9, Version: 9, RKey: 9, Token: 9, Aux: 9, Server: 9}, Key: b, Value: b}
		if err := reused.Decode(b); err != nil {
			t.Fatalf("Frame.Decode refused what Decode accepted: %v", err)
		}
		if reused.Header != fr.Header || !bytes.Equal(reused.Key, fr.Key) || !bytes.Equal(reused.Value, fr.Value) {
			t.Fatalf("Frame.Decode into a used frame: %+v, Decode: %+v", reused, fr)
		}
		again := AppendFrame(nil, fr.Header, fr.Key, fr.Value)
		if !bytes.Equal(again, b) {
			t.Fatalf("accepted frame does not re-encode identically")
		}
		if fr.Type == Hello && fr.Status == OK {
			body, proof := SplitHello(fr.Value)
			if proof != nil && len(proof) != ProofSize {
				t.Fatalf("hello with a %d-byte proof accepted", len(proof))
			}
			if _, err := DecodeHello(body); err != nil && !errors.Is(err, ErrReserved) {
				t.Fatalf("hello body: %v", err)
			}
		}
		if fr.Type == HelloReply && fr.Status == OK {
			if _, err := DecodeLimits(fr.Value); err != nil {
				t.Fatalf("limits body: %v", err)
			}
		}
		if fr.Type == StatsReply && fr.Status == OK {
			if _, err := DecodeStats(fr.Value); err != nil {
				t.Fatalf("stats body: %v", err)
			}
		}
	})
}
