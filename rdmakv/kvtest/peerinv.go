package kvtest

import (
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// testPeerInvalidate covers windows the client closes itself
// (wire.FlagPeerInvalidate). A transport that can (transport.PeerInvalidator)
// must be granted such windows when it asks and only then; one that cannot
// is never granted one. A window closed by its release message is dead for
// the next READ, the server does not close it a second time (that would
// fail the connection: the GET after it must still work), a SET committed
// by a closing SET_FIN is readable, and a lease on such a window that runs
// out ends the connection rather than risk a second close.
func testPeerInvalidate(t *testing.T, env Env) {
	cfg := leaseConfig(env)
	cfg.Lease = 5 * time.Second // the closes by message come first, on a slow guest too
	s, c := startWithClient(t, env, cfg)
	key := []byte("peer-inv")
	val := pattern(leaseSlot, 7)
	mustSet(t, c, key, val)

	r := rawHello(t, env, s.Addr(), cfg.MaxEager, 4096)
	plain := r.readWindow(key, 0)
	if plain.Flags != 0 {
		t.Errorf("GET without FlagPeerInvalidate answered with flags %#x", plain.Flags)
	}
	r.send(wire.Header{Type: wire.GetRelease, Token: plain.Token}, nil, nil)

	pi, can := r.conn.(transport.PeerInvalidator)
	g := r.readWindow(key, wire.FlagPeerInvalidate)
	if granted := g.Flags&wire.FlagPeerInvalidate != 0; granted != can {
		t.Fatalf("GET with FlagPeerInvalidate over %s: reply flag %v, transport can close windows: %v",
			env.Transport, granted, can)
	}
	if !can {
		r.send(wire.Header{Type: wire.GetRelease, Token: g.Token}, nil, nil)
		return
	}
	var hb [wire.MaxHeaderSize]byte
	n := (&wire.Header{Type: wire.GetRelease, Token: g.Token}).Encode(hb[:])
	if err := pi.ReadInvalidate(r.region, 0, leaseSlot, g.Addr, g.RKey, hb[:n], nil, nil); err != nil {
		t.Fatalf("ReadInvalidate through the granted window: %v", err)
	}
	if msg := diffBytes(r.region.Bytes()[:leaseSlot], val); msg != "" {
		t.Errorf("ReadInvalidate: %s", msg)
	}
	// The server handles the release before this GET: had it invalidated
	// the closed window again, the connection would be failing now.
	if f := r.call(wire.Header{Type: wire.Get, Aux: 4096}, []byte("absent"), nil); f.Status != wire.NotFound {
		t.Fatalf("GET after a closing GET_RELEASE answered %s %s, want NOT_FOUND", f.Type, f.Status)
	}

	// SET through a window the client closes with its SET_FIN.
	next := pattern(leaseSlot, 8)
	copy(r.region.Bytes(), next)
	gr := r.writeWindow(key, leaseSlot, wire.FlagPeerInvalidate)
	if gr.Flags&wire.FlagPeerInvalidate == 0 {
		t.Fatalf("SET_RDV_REQ with FlagPeerInvalidate answered flags %#x", gr.Flags)
	}
	r.reqID++
	n = (&wire.Header{Type: wire.SetFin, ReqID: r.reqID, Token: gr.Token, Length: leaseSlot}).Encode(hb[:])
	if err := pi.WriteInvalidate(r.region, 0, leaseSlot, gr.Addr, gr.RKey, hb[:n], nil, nil); err != nil {
		t.Fatalf("WriteInvalidate through the granted window: %v", err)
	}
	if f := r.recv(); f.Type != wire.SetReply || f.Status != wire.OK || f.ReqID != r.reqID {
		t.Fatalf("closing SET_FIN answered %s %s (req %d, want %d)", f.Type, f.Status, f.ReqID, r.reqID)
	}
	mustGetEqual(t, c, key, next)
	// The closed write window takes no more bytes.
	if err := r.conn.Write(r.region, 0, 64, gr.Addr, gr.RKey); err == nil {
		t.Errorf("WRITE through a window closed by its SET_FIN succeeded")
	}
	mustGetEqual(t, c, key, next)

	// A window granted for closing by message and never released: when the
	// lease runs out the server ends the connection.
	r2 := rawHello(t, env, s.Addr(), cfg.MaxEager, 4096)
	g2 := r2.call(wire.Header{Type: wire.Get, Flags: wire.FlagPeerInvalidate, Aux: 4096}, key, nil)
	if g2.Flags&wire.FlagPeerInvalidate == 0 {
		t.Fatalf("second GET with FlagPeerInvalidate answered flags %#x", g2.Flags)
	}
	if err := r2.waitClosed(5*time.Second + 5*cfg.Lease); err != nil {
		t.Errorf("lease on a window the client was to close ran out: %v", err)
	}
	mustGetEqual(t, c, key, next)
}
