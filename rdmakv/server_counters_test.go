package rdmakv

import (
	"context"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// TestServerCounters: each request counts once under its operation and
// protocol, failures under their status, value bytes each way, and the
// totals outlive the connection that made them.
func TestServerCounters(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s, WithEagerThreshold(1024))
	ctx := context.Background()
	for k, n := range map[string]int{"a": 10, "b": 20, "c": 30, "big1": 5000, "big2": 6000} {
		if err := c.Set(ctx, []byte(k), make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range []string{"a", "b", "big1", "missing"} {
		_, _ = c.Get(ctx, []byte(k))
	}
	if err := c.Delete(ctx, []byte("c")); err != nil {
		t.Fatal(err)
	}
	c.Close()
	await(t, "the connection's close", func() bool { return s.Stats().Conns == 0 })
	got := s.Counters()
	want := map[Op]map[Protocol]uint64{
		OpGet:    {Eager: 3, Rendezvous: 1},
		OpSet:    {Eager: 3, Rendezvous: 2},
		OpDelete: {Eager: 1, Rendezvous: 0},
	}
	for op, byProto := range want {
		for p, n := range byProto {
			if got.Requests[op][p] != n {
				t.Errorf("%s %s requests = %d, want %d", op, p, got.Requests[op][p], n)
			}
		}
	}
	if got.Errors["not_found"] != 1 || len(got.Errors) != 1 {
		t.Errorf("errors %v, want one not_found", got.Errors)
	}
	if got.BytesIn != 11060 || got.BytesOut != 5030 {
		t.Errorf("bytes in %d out %d, want 11060 and 5030", got.BytesIn, got.BytesOut)
	}
	if got.Accepted != 1 {
		t.Errorf("accepted %d, want 1", got.Accepted)
	}
}

// TestServerCountersGrantsAndRefusals: an open grant shows in Stats until
// its lease runs out, which counts as an expiry; a client breaking the
// protocol and one over MaxConns count under their reasons. The lease
// runs out when the test says (a reaper pass an hour on), not on the
// clock, so a busy host cannot end it early.
func TestServerCountersGrantsAndRefusals(t *testing.T) {
	s, _ := coreServer(t, func(c *ServerConfig) { c.MaxConns = 1; c.Lease = time.Hour })
	r := coreRawDial(t, s)
	f := r.call(t, wire.Header{Type: wire.SetRdvReq, ReqID: 1, Length: 4096}, []byte("k"), nil)
	if f.Status != wire.OK {
		t.Fatalf("grant: %s", f.Status)
	}
	if st := s.Stats(); st.Grants != 1 || st.GrantBytes != 4096 {
		t.Errorf("with one grant open: %d grants of %d bytes, want 1 of 4096", st.Grants, st.GrantBytes)
	}
	s.reap(time.Now().Add(2*time.Hour), &reaping{})
	await(t, "the grant's lease expiry", func() bool { return s.Counters().LeaseExpiries == 1 && s.Stats().Grants == 0 })
	if st := s.Stats(); st.Grants != 0 || st.GrantBytes != 0 {
		t.Errorf("after the expiry: %d grants of %d bytes, want none", st.Grants, st.GrantBytes)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c, err := Dial(ctx, s.Addr(), WithTransport("tcp")); err == nil {
		c.Close()
		t.Fatal("a second connection was served with MaxConns 1")
	}
	if err := r.conn.Send(wire.AppendFrame(nil, wire.Header{Type: wire.GetRelease, Token: 99}, nil, nil), nil, nil); err != nil {
		t.Fatal(err)
	}
	await(t, "the faulty connection's drop", func() bool { return s.Counters().Refused[RefusedProtocol] == 1 })
	got := s.Counters()
	if got.Refused[RefusedMaxConns] != 1 || got.Accepted != 1 {
		t.Errorf("refused %v, accepted %d; want one over max_conns, one accepted", got.Refused, got.Accepted)
	}
}

// await polls cond; the deadline is a hang guard.
func await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s (hang guard)", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
