package kvtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// testTrace covers rdmakv.WithTrace over the transport: every request of
// both protocols (and a GET that finds nothing) is traced once, its
// phases in order and the server's time inside the part of the round trip
// it answers; and on the wire, only a request with wire.FlagTrace gets a
// reply carrying the server's time.
func testTrace(t *testing.T, env Env) {
	var got []rdmakv.Trace
	s, c := startWithClient(t, env, serverConfig(env), rdmakv.WithEagerThreshold(1024),
		rdmakv.WithTrace(func(_ context.Context, tr *rdmakv.Trace) { got = append(got, *tr) }))
	key := []byte("trace")
	steps := []struct {
		op   rdmakv.Op
		size int // -1: a GET of a missing key
		p    rdmakv.Protocol
	}{
		{rdmakv.OpSet, 100, rdmakv.Eager}, {rdmakv.OpGet, 100, rdmakv.Eager},
		{rdmakv.OpSet, leaseSlot, rdmakv.Rendezvous}, {rdmakv.OpGet, leaseSlot, rdmakv.Rendezvous},
		{rdmakv.OpDelete, 0, rdmakv.Eager}, {rdmakv.OpGet, -1, rdmakv.Eager},
	}
	for _, st := range steps {
		got = got[:0]
		var err error
		switch st.op {
		case rdmakv.OpSet:
			err = c.Set(opCtx(t), key, pattern(st.size, 5))
		case rdmakv.OpGet:
			var v *rdmakv.Value
			if v, err = c.Get(opCtx(t), key); err == nil {
				v.Release()
			} else if st.size < 0 && errors.Is(err, rdmakv.ErrNotFound) {
				err = nil
			}
		case rdmakv.OpDelete:
			err = c.Delete(opCtx(t), key)
		}
		if err != nil {
			t.Fatalf("%v of %d bytes: %v", st.op, st.size, err)
		}
		if len(got) != 1 {
			t.Fatalf("%v of %d bytes: %d traces, want 1", st.op, st.size, len(got))
		}
		checkTrace(t, got[0], st.op, st.p)
	}
	traceOnTheWire(t, env, s.Addr())
}

func checkTrace(t *testing.T, tr rdmakv.Trace, op rdmakv.Op, p rdmakv.Protocol) {
	t.Helper()
	rtt := time.Duration(tr.End - tr.Start)
	if tr.Op != op || tr.Protocol != p || rtt <= 0 || tr.Server <= 0 {
		t.Fatalf("trace of %v %v: %+v", op, p, tr)
	}
	if p == rdmakv.Eager {
		if tr.Granted != 0 || tr.Server >= rtt {
			t.Fatalf("eager %v: server %v of round trip %v: %+v", op, tr.Server, rtt, tr)
		}
		return
	}
	ordered := tr.Start < tr.Granted && tr.Granted <= tr.Moved && tr.Moved <= tr.End
	if !ordered || tr.Server >= time.Duration(tr.Granted-tr.Start) {
		t.Fatalf("rendezvous %v: phases out of order or server time outside request to grant: %+v", op, tr)
	}
	if op == rdmakv.OpSet && (tr.ServerCommit <= 0 || tr.ServerCommit >= time.Duration(tr.End-tr.Granted)) {
		t.Fatalf("rendezvous set: commit time outside grant to reply: %+v", tr)
	}
	if op == rdmakv.OpGet && (tr.Staged < tr.Granted || tr.Staged > tr.Moved) {
		t.Fatalf("rendezvous get: staging outside grant to READ: %+v", tr)
	}
}

// traceOnTheWire: a traced GET's reply carries the flag and a server
// time, an untraced one neither.
func traceOnTheWire(t *testing.T, env Env, addr string) {
	r := rawHello(t, env, addr, 16<<10, 4096)
	for _, fl := range []wire.Flag{0, wire.FlagTrace} {
		f := r.call(wire.Header{Type: wire.Get, Flags: fl, Aux: 4096}, []byte("absent"), nil)
		traced := f.Flags&wire.FlagTrace != 0
		if f.Status != wire.NotFound || traced != (fl != 0) || (f.Server != 0) != traced {
			t.Fatalf("GET with flags %#x answered %s %s, flags %#x, server time %d ns", fl, f.Type, f.Status, f.Flags, f.Server)
		}
	}
}
