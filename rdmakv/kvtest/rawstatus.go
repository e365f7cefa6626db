package kvtest

import (
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// testRawStatuses sends well-formed requests the server must refuse with a
// status, not a dropped connection: the checks a client in another language
// relies on, which the Go client mostly makes before sending.
func testRawStatuses(t *testing.T, env Env) {
	cfg := serverConfig(env)
	s := startServer(t, cfg)
	r := rawHello(t, env, s.Addr(), cfg.MaxEager, 4096)
	if r.limits.MaxEager != uint32(cfg.MaxEager) || r.limits.MaxKey != uint32(cfg.MaxKey) ||
		r.limits.MaxValue != uint64(cfg.MaxValue) || r.limits.PoolSize != uint64(cfg.PoolSize) ||
		r.limits.LeaseMillis != uint32(cfg.Lease/time.Millisecond) {
		t.Errorf("HELLO_REPLY limits %+v do not match the server config %+v", r.limits, cfg)
	}
	long := pattern(cfg.MaxKey+1, 1)
	cases := []struct {
		name  string
		h     wire.Header
		key   []byte
		value []byte
		want  wire.Type
		st    wire.Status
	}{
		{"set-key-too-long", wire.Header{Type: wire.Set}, long, []byte("v"), wire.SetReply, wire.KeyTooLong},
		{"get-key-too-long", wire.Header{Type: wire.Get, Aux: 4096}, long, nil, wire.GetReplyInline, wire.KeyTooLong},
		{"delete-key-too-long", wire.Header{Type: wire.Delete}, long, nil, wire.DeleteReply, wire.KeyTooLong},
		{"rdv-key-too-long", wire.Header{Type: wire.SetRdvReq, Length: 10000}, long, nil, wire.SetRdvGrant, wire.KeyTooLong},
		{"rdv-value-too-large", wire.Header{Type: wire.SetRdvReq, Length: uint64(cfg.MaxValue) + 1}, []byte("k"), nil, wire.SetRdvGrant, wire.ValueTooLarge},
		{"eager-at-max-eager", wire.Header{Type: wire.Set}, []byte("k"), pattern(cfg.MaxEager-1, 2), wire.SetReply, wire.BadRequest},
		{"get-missing", wire.Header{Type: wire.Get, Aux: 4096}, []byte("missing"), nil, wire.GetReplyInline, wire.NotFound},
		{"delete-missing", wire.Header{Type: wire.Delete}, []byte("missing"), nil, wire.DeleteReply, wire.NotFound},
	}
	for _, tc := range cases {
		f := r.call(tc.h, tc.key, tc.value)
		if f.Type != tc.want || f.Status != tc.st {
			t.Errorf("%s: answered %s %s, want %s %s", tc.name, f.Type, f.Status, tc.want, tc.st)
		}
	}
	// NO_SPACE: ask for grants until the pool runs out; grants pin space.
	var st wire.Status
	for i := 0; i < int(cfg.PoolSize/cfg.MaxValue)+2; i++ {
		f := r.call(wire.Header{Type: wire.SetRdvReq, Length: uint64(cfg.MaxValue)}, []byte("k"), nil)
		if st = f.Status; st != wire.OK {
			break
		}
	}
	if st != wire.NoSpace {
		t.Errorf("SET_RDV_REQ grants of %d bytes beyond a %d-byte pool: last status %s, want NO_SPACE", cfg.MaxValue, cfg.PoolSize, st)
	}
	// A commit whose length differs from the grant is refused with a status.
	r2 := rawHello(t, env, s.Addr(), cfg.MaxEager, 4096)
	g := r2.writeWindow([]byte("empty"), 0, 0)
	if g.Token == 0 {
		t.Fatalf("SET_RDV_GRANT for an empty value carries token 0")
	}
	if f := r2.call(wire.Header{Type: wire.SetFin, Token: g.Token, Length: 5}, nil, nil); f.Type != wire.SetReply || f.Status != wire.BadRequest {
		t.Errorf("SET_FIN of length 5 for a 0-byte grant answered %s %s, want SET_REPLY BAD_REQUEST", f.Type, f.Status)
	}
	if f := r2.call(wire.Header{Type: wire.Get, Aux: 4096}, []byte("empty"), nil); f.Status != wire.NotFound {
		t.Errorf("GET after a refused commit answered %s %s, want NOT_FOUND", f.Type, f.Status)
	}
	// Both connections are still alive: every refusal above was a status.
	for i, rc := range []*rawClient{r, r2} {
		if f := rc.call(wire.Header{Type: wire.Get, Aux: 4096}, []byte("missing"), nil); f.Status != wire.NotFound {
			t.Errorf("raw client %d after refusals: GET answered %s %s", i, f.Type, f.Status)
		}
	}
}
