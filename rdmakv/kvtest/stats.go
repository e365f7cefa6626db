package kvtest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// testServerStats covers Client.ServerStats over the transport: the
// figures are the server's own (every connection, the keys stored, the
// pool bytes they take), its process CPU time is positive and grows as
// the server works, a tracing client asks without tracing or being
// refused, and a closed client gets ErrClosed.
func testServerStats(t *testing.T, env Env) {
	cfg := serverConfig(env)
	// Threshold 0 gives the smallest receive buffers a Go client has.
	s, c := startWithClient(t, env, cfg, rdmakv.WithEagerThreshold(0))
	traces := 0
	traced := dial(t, env, s.Addr(), rdmakv.WithEagerThreshold(1024),
		rdmakv.WithTrace(func(context.Context, *rdmakv.Trace) { traces++ }))
	sizes := []int{0, 100, 1000, 20000, leaseSlot}
	var stored int64
	for i, n := range sizes {
		mustSet(t, traced, []byte(fmt.Sprintf("stats-%d", i)), pattern(n, uint64(i)))
		stored += int64(n)
	}
	pre := s.Stats()
	first := mustServerStats(t, c)
	local := s.Stats()
	if first.Keys != len(sizes) || first.Conns != 2 || first.PoolSize != cfg.PoolSize ||
		first.PoolUsed != local.PoolUsed || first.PoolUsed < stored {
		t.Fatalf("ServerStats after %d sets of %d bytes in all over 2 connections: %+v; the server says %+v",
			len(sizes), stored, first, local)
	}
	// The kernel splits CPU time between user and system by sampling, so
	// either may still read 0 in a young process; their sum is exact.
	if first.CPUUser+first.CPUSys <= 0 || first.CPUUser < pre.CPUUser || first.CPUUser > local.CPUUser ||
		first.CPUSys < pre.CPUSys || first.CPUSys > local.CPUSys {
		t.Fatalf("ServerStats CPU user %v sys %v: want a positive sum, each between the server's own figures "+
			"before (%v, %v) and after (%v, %v)", first.CPUUser, first.CPUSys, pre.CPUUser, pre.CPUSys,
			local.CPUUser, local.CPUSys)
	}

	for range 100 {
		mustGetEqual(t, traced, []byte("stats-1"), pattern(100, 1))
	}
	if err := traced.Delete(opCtx(t), []byte("stats-0")); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	before := traces
	second := mustServerStats(t, traced)
	if traces != before {
		t.Errorf("ServerStats on a tracing client called its hook %d times, want none", traces-before)
	}
	if second.Keys != len(sizes)-1 || second.Conns != 2 || second.PoolUsed != s.Stats().PoolUsed {
		t.Errorf("ServerStats after a delete: %+v, want %d keys, 2 connections and the server's pool bytes %d",
			second, len(sizes)-1, s.Stats().PoolUsed)
	}
	if second.CPUUser < first.CPUUser || second.CPUSys < first.CPUSys ||
		second.CPUUser+second.CPUSys <= first.CPUUser+first.CPUSys {
		t.Errorf("CPU after 100 GETs and a DELETE: user %v -> %v, sys %v -> %v; want neither to fall and the sum to grow",
			first.CPUUser, second.CPUUser, first.CPUSys, second.CPUSys)
	}

	statsOnTheWire(t, env, s.Addr(), second.Conns, second.Keys)
	c.Close()
	if _, err := c.ServerStats(opCtx(t)); !errors.Is(err, rdmakv.ErrClosed) {
		t.Errorf("ServerStats after Close: %v, want ErrClosed", err)
	}
}

func mustServerStats(t *testing.T, c *rdmakv.Client) rdmakv.ServerStats {
	t.Helper()
	st, err := c.ServerStats(opCtx(t))
	if err != nil {
		t.Fatalf("ServerStats: %v", err)
	}
	return st
}

// statsOnTheWire: a client that declares the smallest receive buffers the
// server accepts gets a STATS_REPLY with the body and no flags; one that
// declares a byte less, or sends STATS before HELLO, is dropped. conns and
// keys are what the server held before this raw client connected.
func statsOnTheWire(t *testing.T, env Env, addr string, conns, keys int) {
	hello := func(recv uint32) []byte {
		b := make([]byte, wire.HelloBodySize)
		(&wire.HelloBody{RecvSize: recv, Threshold: 0, Depth: 1}).Encode(b)
		return b
	}
	least := uint32(wire.HeaderLen(wire.StatsReply) + wire.StatsBodySize)
	r := rawConnect(t, env, addr, 0)
	if f := r.call(wire.Header{Type: wire.Hello}, nil, hello(least)); f.Type != wire.HelloReply || f.Status != wire.OK {
		t.Fatalf("HELLO with %d-byte receive buffers answered %s %s", least, f.Type, f.Status)
	}
	f := r.call(wire.Header{Type: wire.Stats}, nil, nil)
	body, err := wire.DecodeStats(f.Value)
	if f.Type != wire.StatsReply || f.Status != wire.OK || f.Flags != 0 || err != nil {
		t.Fatalf("STATS answered %s %s flags %#x with a %d-byte body: %v", f.Type, f.Status, f.Flags, len(f.Value), err)
	}
	if body.Conns != uint64(conns)+1 || body.Keys != uint64(keys) || body.CPUUserNs+body.CPUSysNs == 0 {
		t.Errorf("STATS_REPLY body %+v, want %d connections, %d keys and CPU time", body, conns+1, keys)
	}

	small := rawConnect(t, env, addr, 0)
	small.send(wire.Header{Type: wire.Hello}, nil, hello(least-1))
	if err := small.waitClosed(10 * time.Second); err != nil {
		t.Errorf("HELLO with %d-byte receive buffers, too small for a STATS_REPLY: %v", least-1, err)
	}
	early := rawConnect(t, env, addr, 0)
	early.send(wire.Header{Type: wire.Stats}, nil, nil)
	if err := early.waitClosed(10 * time.Second); err != nil {
		t.Errorf("STATS before HELLO: %v", err)
	}
}
