package kvtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// testMisbehaving sends malformed or dishonest requests over the raw
// protocol. The offending connection must be closed; clients connected
// before and after keep working and stored data is untouched.
func testMisbehaving(t *testing.T, env Env) {
	cfg := serverConfig(env)
	cfg.Lease = time.Hour // a case's window is open until its fault, however slow the host
	s, before := startWithClient(t, env, cfg)
	key := []byte("guarded")
	old := pattern(20000, 1)
	mustSet(t, before, key, old)

	hello := func(t *testing.T) *rawClient { return rawHello(t, env, s.Addr(), cfg.MaxEager, 4096) }
	grant := func(r *rawClient, n uint64) wire.Frame { return r.writeWindow(key, n, 0) }
	header := func(h wire.Header) []byte {
		b := make([]byte, wire.MaxHeaderSize)
		return b[:h.Encode(b)]
	}

	cases := []struct {
		name string
		do   func(t *testing.T, r *rawClient)
	}{
		{"unknown-type", func(t *testing.T, r *rawClient) {
			r.conn.Send(header(wire.Header{Type: 200, ReqID: 1}), nil, nil)
		}},
		{"reply-type-from-client", func(t *testing.T, r *rawClient) {
			r.conn.Send(header(wire.Header{Type: wire.SetReply, ReqID: 1}), nil, nil)
		}},
		{"truncated-header", func(t *testing.T, r *rawClient) {
			r.conn.Send(header(wire.Header{Type: wire.Get, ReqID: 1})[:wire.BaseSize/2], nil, nil)
		}},
		{"header-cut-after-base", func(t *testing.T, r *rawClient) {
			r.conn.Send(header(wire.Header{Type: wire.SetFin, ReqID: 1, Token: 1})[:wire.BaseSize+4], nil, nil)
		}},
		{"length-mismatch", func(t *testing.T, r *rawClient) {
			h := header(wire.Header{Type: wire.Set, ReqID: 1, KeyLen: 4, ValueLen: 100})
			r.conn.Send(h, []byte("ab"), nil)
		}},
		{"bad-magic", func(t *testing.T, r *rawClient) {
			h := header(wire.Header{Type: wire.Get, ReqID: 1, KeyLen: 1})
			h[0] = 'X'
			r.conn.Send(h, []byte("k"), nil)
		}},
		{"request-before-hello", nil}, // handled below: no HELLO at all
		{"bad-token-commit-imm", func(t *testing.T, r *rawClient) {
			g := grant(r, 20000)
			copy(r.region.Bytes(), pattern(20000, 66))
			r.conn.WriteImm(r.region, 0, 20000, g.Addr, g.RKey, g.Token^0x5a5a5a5a)
		}},
		{"bad-token-fin", func(t *testing.T, r *rawClient) {
			grant(r, 20000)
			r.send(wire.Header{Type: wire.SetFin, Token: 0xdeadbeef, Length: 20000}, nil, nil)
		}},
		{"write-outside-window", func(t *testing.T, r *rawClient) {
			g := grant(r, 20000)
			// Just past the end: in bounds of the pool, out of the window.
			r.conn.Write(r.region, 0, 4096, g.Addr+g.Length, g.RKey)
		}},
		{"write-before-window", func(t *testing.T, r *rawClient) {
			g := grant(r, 20000)
			r.conn.Write(r.region, 0, 64, g.Addr-64, g.RKey)
		}},
		{"second-hello", func(t *testing.T, r *rawClient) {
			body := make([]byte, wire.HelloBodySize)
			(&wire.HelloBody{RecvSize: 1 << 16, Threshold: 4096, Depth: 4}).Encode(body)
			r.send(wire.Header{Type: wire.Hello}, nil, body)
		}},
		{"release-never-issued-token", func(t *testing.T, r *rawClient) {
			r.send(wire.Header{Type: wire.GetRelease, Token: 0xfeed}, nil, nil)
		}},
		{"fin-names-get-lease", func(t *testing.T, r *rawClient) {
			g := r.readWindow(key, 0)
			r.send(wire.Header{Type: wire.SetFin, Token: g.Token, Length: g.Length}, nil, nil)
		}},
		{"write-into-read-window", func(t *testing.T, r *rawClient) {
			g := r.readWindow(key, 0)
			r.conn.Write(r.region, 0, int(g.Length), g.Addr, g.RKey)
		}},
		{"read-from-write-window", func(t *testing.T, r *rawClient) {
			g := grant(r, 20000)
			r.conn.Read(r.region, 0, 20000, g.Addr, g.RKey)
		}},
		{"write-far-outside-window", func(t *testing.T, r *rawClient) {
			g := grant(r, 20000)
			r.conn.Write(r.region, 0, 64, g.Addr+1<<20, g.RKey)
		}},
		{"write-longer-than-window", func(t *testing.T, r *rawClient) {
			g := grant(r, 20000)
			r.conn.WriteImm(r.region, 0, 20000+4096, g.Addr, g.RKey, g.Token)
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mustSet(t, before, key, old) // each case starts from the same state
			var r *rawClient
			if tc.do == nil {
				r = rawConnect(t, env, s.Addr(), cfg.MaxEager)
				r.send(wire.Header{Type: wire.Get, Aux: 4096}, key, nil)
			} else {
				r = hello(t)
				tc.do(t, r)
			}
			if err := r.waitClosed(10 * time.Second); err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			// Old value intact, for the old and for a new client.
			mustGetEqual(t, before, key, old)
			after := dial(t, env, s.Addr())
			mustGetEqual(t, after, key, old)
			roundTrip(t, after, []byte(fmt.Sprintf("after-%d", i)), 9000, uint64(i), rdmakv.Rendezvous)
			roundTrip(t, before, []byte(fmt.Sprintf("before-%d", i)), 90, uint64(i), rdmakv.Eager)
			after.Close()
		})
	}
}
