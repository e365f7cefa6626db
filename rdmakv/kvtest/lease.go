package kvtest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

const (
	leaseSlot = 64 << 10
	leasePool = 1 << 20
)

// leaseConfig is a small pool with a short lease, so a leaked grant is a
// large, visible part of the pool and reclaim comes quickly.
func leaseConfig(env Env) rdmakv.ServerConfig {
	cfg := serverConfig(env)
	cfg.PoolSize = leasePool
	cfg.MaxValue = leasePool / 2
	cfg.Lease = time.Second // short, yet long enough for a slow emulated link
	return cfg
}

// fillCount sets leaseSlot-byte values until the pool is full and returns
// how many fitted, then deletes them again.
func fillCount(t *testing.T, c *rdmakv.Client, tag string) int {
	t.Helper()
	var keys [][]byte
	for i := 0; ; i++ {
		key := []byte(fmt.Sprintf("%s-fill-%03d", tag, i))
		err := c.Set(opCtx(t), key, pattern(leaseSlot, uint64(i)))
		if errors.Is(err, rdmakv.ErrNoSpace) {
			break
		}
		if err != nil {
			t.Fatalf("filling the pool, set %d: %v", i, err)
		}
		if i > 2*leasePool/leaseSlot {
			t.Fatalf("a %d-byte pool took %d values of %d bytes without ErrNoSpace", leasePool, i, leaseSlot)
		}
		keys = append(keys, key)
	}
	mustDeleteAll(t, c, keys)
	return len(keys)
}

// fillAfterReclaim is fillCount once the server has reclaimed what an
// expired lease pinned: reclaim is due after the lease, so it polls until
// want values fit again, bounded by a hang guard, and returns the last count.
func fillAfterReclaim(t *testing.T, c *rdmakv.Client, lease time.Duration, want int) int {
	t.Helper()
	deadline := time.Now().Add(5*time.Second + 5*lease)
	for {
		got := fillCount(t, c, "after")
		if got >= want || time.Now().After(deadline) {
			return got
		}
		time.Sleep(lease / 3)
	}
}

// testVanishingClient obtains rendezvous grants over the raw protocol and
// never commits them: once with the connection kept open (only the lease
// can reclaim the grant) and once with the client gone. Either way the pool
// must come back to what an untouched server holds, and the key must keep
// its old value.
func testVanishingClient(t *testing.T, env Env) {
	cfg := leaseConfig(env)
	key := []byte("leased")
	old := pattern(leaseSlot, 1)
	want := baselineFill(t, env, key, old)

	for _, vanish := range []bool{false, true} {
		name := map[bool]string{false: "stalled", true: "vanished"}[vanish]
		t.Run(name, func(t *testing.T) {
			s, c := startWithClient(t, env, cfg)
			mustSet(t, c, key, old)
			r := rawHello(t, env, s.Addr(), cfg.MaxEager, 4096)
			const n = leasePool / 4
			g := r.writeWindow(key, n, 0)
			if g.Length != n || g.Token == 0 {
				t.Errorf("grant: length %d token %d, want length %d and a non-zero token", g.Length, g.Token, n)
			}
			// Half the payload lands; uncommitted data is invisible.
			copy(r.region.Bytes(), pattern(n, 50))
			wrote := r.conn.Write(r.region, 0, n/2, g.Addr, g.RKey)
			if wrote != nil && s.Counters().LeaseExpiries == 0 {
				t.Fatalf("WRITE into the granted window, whose lease has not run out: %v", wrote)
			}
			mustGetEqual(t, c, key, old)
			if wrote != nil {
				t.Logf("the lease ran out before the first WRITE (a slow host); the window was closed, as a vanished client's")
			} else if vanish {
				r.conn.Close()
			} else {
				// While the grant is open it pins pool space. This is only
				// asserted when a WRITE afterwards proves the window was
				// still open during the whole fill (a slow machine may see
				// the lease run out first).
				during := fillCount(t, c, "during")
				if err := r.conn.Write(r.region, 0, 1, g.Addr, g.RKey); err == nil && during >= want {
					t.Errorf("with a %d-byte grant open the pool still took %d values of %d bytes, as many as without it: the grant reserves nothing, so this case cannot see a leak",
						n, during, leaseSlot)
				}
			}
			if got := fillAfterReclaim(t, c, cfg.Lease, want); got != want {
				t.Errorf("%s grant of %d bytes, lease %v: afterwards the pool holds %d values of %d bytes, want %d as on an untouched server (grant not reclaimed)",
					name, n, cfg.Lease, got, leaseSlot, want)
			}
			mustGetEqual(t, c, key, old)
			if !vanish {
				// A commit after the lease ran out must not land: the
				// window is gone, so the WRITE_WITH_IMM is refused, or the
				// server refuses the stale token.
				err := r.conn.WriteImm(r.region, 0, n, g.Addr, g.RKey, g.Token)
				if err == nil {
					select {
					case m := <-r.in:
						if f, derr := wire.Decode(m.data); derr == nil && f.Status == wire.OK {
							t.Errorf("commit after the lease expired was accepted: %s %s", f.Type, f.Status)
						}
					case <-r.closed:
					case <-time.After(10 * time.Second):
						t.Errorf("commit after the lease expired: no answer and connection still open after 10s")
					}
				}
				mustGetEqual(t, c, key, old)
			}
		})
	}
}
