package rdmakv

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// TestServerStats: Stats counts connections and keys, and the pool bytes
// that committed values and uncommitted grants take, back to zero once
// they are gone.
func TestServerStats(t *testing.T) {
	s, _ := coreServer(t, nil)
	if st := s.Stats(); st.Conns != 0 || st.Keys != 0 || st.PoolUsed != 0 || st.PoolSize != 16<<20 {
		t.Fatalf("fresh server: %+v, want nothing held and a 16 MiB pool", st)
	}
	c := coreDial(t, s, WithEagerThreshold(1024))
	ctx := context.Background()
	if err := c.Set(ctx, []byte("small"), make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, []byte("large"), make([]byte, 100_000)); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Conns != 1 || st.Keys != 2 || st.PoolUsed < 100_100 {
		t.Fatalf("after two sets: %+v, want 1 connection, 2 keys, at least 100100 bytes used", st)
	}

	// A grant takes pool space before anything is committed.
	r := coreRawDial(t, s)
	f := r.call(t, wire.Header{Type: wire.SetRdvReq, ReqID: 1, Length: 1 << 20}, []byte("k"), nil)
	if f.Type != wire.SetRdvGrant || f.Status != wire.OK {
		t.Fatalf("grant: %s %s", f.Type, f.Status)
	}
	if got := s.Stats(); got.Conns != 2 || got.Keys != 2 || got.PoolUsed < st.PoolUsed+1<<20 {
		t.Fatalf("with a 1 MiB grant open: %+v, want 2 connections and 1 MiB more used than %d", got, st.PoolUsed)
	}
	r.conn.Close()

	for _, k := range []string{"small", "large"} {
		if err := c.Delete(ctx, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	// What the server holds, without the CPU times, which only grow.
	held := func() ServerStats {
		st := s.Stats()
		st.CPUUser, st.CPUSys = 0, 0
		return st
	}
	deadline := time.Now().Add(10 * time.Second)
	for st = held(); st != (ServerStats{PoolSize: 16 << 20}) && time.Now().Before(deadline); st = held() {
		time.Sleep(10 * time.Millisecond)
	}
	if st != (ServerStats{PoolSize: 16 << 20}) {
		t.Fatalf("after deletes and closes: %+v, want nothing held", st)
	}
}

// TestClientServerStats: a client's ServerStats carries the server's
// figures over the wire: its connections, the keys stored and their pool
// blocks, and CPU time that is positive and grows as the server works.
func TestClientServerStats(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s, WithEagerThreshold(1024))
	other := coreDial(t, s, WithEagerThreshold(0))
	ctx := context.Background()
	for k, n := range map[string]int{"eager": 100, "rendezvous": 100_000, "empty": 0} {
		if err := c.Set(ctx, []byte(k), make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	user0, sys0 := processCPU()
	first, err := other.ServerStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	user1, sys1 := processCPU()
	// 100 bytes take a 128-byte block, 100000 a 128 KiB one, nothing none.
	want := ServerStats{Conns: 2, Keys: 3, PoolUsed: 128 + 128<<10, PoolSize: 16 << 20,
		CPUUser: first.CPUUser, CPUSys: first.CPUSys}
	if first != want {
		t.Fatalf("ServerStats = %+v, want %+v", first, want)
	}
	// The kernel splits CPU time between user and system by sampling, so
	// either may still read 0 in a young process; their sum is exact.
	if first.CPUUser+first.CPUSys <= 0 || first.CPUUser < user0 || first.CPUUser > user1 ||
		first.CPUSys < sys0 || first.CPUSys > sys1 {
		t.Fatalf("ServerStats CPU user %v sys %v: want a positive sum, each between the process's own "+
			"figures before (%v, %v) and after (%v, %v)", first.CPUUser, first.CPUSys, user0, sys0, user1, sys1)
	}
	for range 100 {
		v, err := c.Get(ctx, []byte("eager"))
		if err != nil {
			t.Fatal(err)
		}
		v.Release()
	}
	second, err := c.ServerStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if second.CPUUser < first.CPUUser || second.CPUSys < first.CPUSys ||
		second.CPUUser+second.CPUSys <= first.CPUUser+first.CPUSys {
		t.Fatalf("CPU after 100 GETs: user %v -> %v, sys %v -> %v; want neither to fall and the sum to grow",
			first.CPUUser, second.CPUUser, first.CPUSys, second.CPUSys)
	}
}

// TestClientServerStatsErrors: ServerStats fails as any request does,
// with ErrTimeout, the context's error or ErrClosed, and a reply lost to a
// timeout does not reach the next call.
func TestClientServerStatsErrors(t *testing.T) {
	_, c := memPair(t, WithTimeout(50*time.Millisecond))
	ctx := context.Background()
	st := c.conn.raw.(*memConn).memState
	st.hold(true)
	if _, err := c.ServerStats(ctx); !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "STATS_REPLY") {
		t.Fatalf("ServerStats with its reply held: %v, want ErrTimeout naming STATS_REPLY", err)
	}
	st.hold(false) // the late reply is now first in line
	if got, err := c.ServerStats(ctx); err != nil || got.Conns != 1 {
		t.Fatalf("ServerStats after a timeout: %+v, %v", got, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.ServerStats(cancelled); !errors.Is(err, context.Canceled) {
		t.Fatalf("ServerStats with a cancelled context: %v", err)
	}
	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	if _, err := c.ServerStats(expired); !errors.Is(err, ErrTimeout) {
		t.Fatalf("ServerStats past its deadline: %v, want ErrTimeout", err)
	}
	c.Close()
	if _, err := c.ServerStats(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("ServerStats after Close: %v, want ErrClosed", err)
	}
}

// TestServerStatsAllocs: a STATS round trip, client, server and
// transport together, allocates no more than a GET does: nothing.
func TestServerStatsAllocs(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s)
	ctx := context.Background()
	ask := func() {
		if _, err := c.ServerStats(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for range 100 {
		ask()
	}
	if n := testing.AllocsPerRun(300, ask); n >= 1 {
		t.Fatalf("ServerStats allocates %.2f times per call", n)
	}
}

// TestFromStatsBody: a figure that does not fit its field is a protocol
// error naming it, not a negative count or duration.
func TestFromStatsBody(t *testing.T) {
	ok := wire.StatsBody{CPUUserNs: 1, CPUSysNs: 2, Conns: 3, Keys: 4, PoolUsed: 5, PoolSize: 6}
	if got, err := fromStatsBody(ok); err != nil ||
		got != (ServerStats{CPUUser: 1, CPUSys: 2, Conns: 3, Keys: 4, PoolUsed: 5, PoolSize: 6}) {
		t.Fatalf("fromStatsBody(%+v) = %+v, %v", ok, got, err)
	}
	for name, b := range map[string]wire.StatsBody{
		"cpu_user_ns": {CPUUserNs: 1 << 63}, "cpu_sys_ns": {CPUSysNs: 1 << 63}, "conns": {Conns: 1 << 63},
		"keys": {Keys: 1<<64 - 1}, "pool_used": {PoolUsed: 1 << 63}, "pool_size": {PoolSize: 1 << 63},
	} {
		if _, err := fromStatsBody(b); !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s out of range: %v, want ErrProtocol naming it", name, err)
		}
	}
}
