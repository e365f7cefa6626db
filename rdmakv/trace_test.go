package rdmakv

import (
	"context"
	"errors"
	"testing"
	"time"
)

type traceKey struct{}

// TestTrace checks every request's phases over TCP: in order, inside the
// round trip, with the server's time inside the part of the round trip
// it answers, and handed to the hook with the request's context.
func TestTrace(t *testing.T) {
	s, _ := coreServer(t, nil)
	var got []Trace
	var ctxOK bool
	c := coreDial(t, s, WithEagerThreshold(1024), WithTrace(func(ctx context.Context, tr *Trace) {
		ctxOK = ctx.Value(traceKey{}) == "caller"
		got = append(got, *tr)
	}))
	ctx := context.WithValue(context.Background(), traceKey{}, "caller")
	cases := []struct {
		op   Op
		size int
		want Protocol
	}{
		{OpSet, 100, Eager}, {OpGet, 100, Eager}, {OpDelete, 0, Eager}, {OpGet, -1, Eager},
		{OpSet, 64 << 10, Rendezvous}, {OpGet, 64 << 10, Rendezvous}, {OpSet, 0, Eager},
	}
	for i, tc := range cases {
		got, ctxOK = got[:0], false
		key := []byte("trace")
		var err error
		switch tc.op {
		case OpSet:
			err = c.Set(ctx, key, coreFill(tc.size, 3))
		case OpGet:
			var v *Value
			if v, err = c.Get(ctx, key); err == nil {
				v.Release()
			}
			if tc.size < 0 && errors.Is(err, ErrNotFound) {
				err = nil
			}
		case OpDelete:
			err = c.Delete(ctx, key)
		}
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if len(got) != 1 || !ctxOK {
			t.Fatalf("case %d (%v): %d traces, context passed: %v", i, tc.op, len(got), ctxOK)
		}
		checkTrace(t, got[0], tc.op, tc.want)
	}
}

func checkTrace(t *testing.T, tr Trace, op Op, p Protocol) {
	t.Helper()
	if tr.Op != op || tr.Protocol != p {
		t.Fatalf("trace of %v %v: %+v", op, p, tr)
	}
	rtt := time.Duration(tr.End - tr.Start)
	if tr.Start == 0 || rtt <= 0 || tr.Server <= 0 {
		t.Fatalf("%v %v: no round trip or server time: %+v", op, p, tr)
	}
	if p == Eager {
		if tr.Granted != 0 || tr.Moved != 0 || tr.ServerCommit != 0 || tr.Server >= rtt {
			t.Fatalf("eager %v: %+v (round trip %v)", op, tr, rtt)
		}
		return
	}
	if !(tr.Start < tr.Granted && tr.Granted <= tr.Moved && tr.Moved <= tr.End) {
		t.Fatalf("rendezvous %v: phases out of order: %+v", op, tr)
	}
	if tr.Server >= time.Duration(tr.Granted-tr.Start) {
		t.Fatalf("rendezvous %v: server time %v outside request to grant %v", op, tr.Server, time.Duration(tr.Granted-tr.Start))
	}
	switch op {
	case OpSet:
		// Over TCP the post returns once the payload is in the socket, by
		// when the server may have committed: the commit lies after the
		// grant, not necessarily after the post.
		if tr.ServerCommit <= 0 || tr.ServerCommit >= time.Duration(tr.End-tr.Granted) {
			t.Fatalf("rendezvous set: commit time %v outside %v: %+v", tr.ServerCommit, time.Duration(tr.End-tr.Granted), tr)
		}
	case OpGet:
		if tr.ServerCommit != 0 || tr.Staged < tr.Granted || tr.Staged > tr.Moved {
			t.Fatalf("rendezvous get: a commit time, or staging outside grant to READ: %+v", tr)
		}
	}
}

// A refused grant is traced as the one round trip it was: no commit time.
func TestTraceRefusedGrant(t *testing.T) {
	s, _ := coreServer(t, func(c *ServerConfig) { c.PoolSize, c.MaxValue = 1<<20, 1<<20 })
	var got []Trace
	c := coreDial(t, s, WithTrace(func(_ context.Context, tr *Trace) { got = append(got, *tr) }))
	ctx := context.Background()
	big := coreFill(900<<10, 1)
	if err := c.Set(ctx, []byte("a"), big); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, []byte("b"), big); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("second set: %v, want ErrNoSpace", err)
	}
	tr := got[len(got)-1]
	if tr.Granted == 0 || tr.Moved != 0 || tr.ServerCommit != 0 || tr.Server <= 0 {
		t.Fatalf("refused grant: %+v", tr)
	}
}

// TestTraceNotOnFailure: a request that gets no reply is not traced, and
// the next one is.
func TestTraceNotOnFailure(t *testing.T) {
	n := 0
	_, c := memPair(t, WithTimeout(50*time.Millisecond), WithTrace(func(context.Context, *Trace) { n++ }))
	ctx := context.Background()
	if err := c.Set(ctx, []byte("k"), []byte("v")); err != nil || n != 1 {
		t.Fatalf("set: %v, %d traces", err, n)
	}
	st := c.conn.raw.(*memConn).memState
	st.hold(true)
	if _, err := c.Get(ctx, []byte("k")); !errors.Is(err, ErrTimeout) {
		t.Fatalf("held reply: got %v, want ErrTimeout", err)
	}
	st.hold(false)
	if n != 1 {
		t.Fatalf("a timed-out get was traced (%d traces)", n)
	}
	v, err := c.Get(ctx, []byte("k"))
	if err != nil {
		t.Fatal(err)
	}
	v.Release()
	if n != 2 {
		t.Fatalf("%d traces after a get that succeeded, want 2", n)
	}
}
