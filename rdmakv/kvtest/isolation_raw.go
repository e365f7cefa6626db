package kvtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// testRendezvousGetIsolationRaw holds a rendezvous get open deterministically:
// the raw client receives GET_REPLY_RDV, then another client overwrites and
// deletes the key and churns the pool, and only then does the raw client
// READ. The server must keep the old slot alive for the lease, so the READ
// returns the old value intact.
func testRendezvousGetIsolationRaw(t *testing.T, env Env) {
	cfg := serverConfig(env)
	cfg.PoolSize = 4 << 20 // small, so churn would reuse a freed slot
	cfg.MaxValue = 1 << 20
	cfg.Lease = time.Hour // the READ comes after the churn, however slow the host
	s, c := startWithClient(t, env, cfg)
	const n = 256 << 10
	key := []byte("held-open")
	old := pattern(n, 1)
	mustSet(t, c, key, old)

	r := rawHello(t, env, s.Addr(), cfg.MaxEager, 4096)
	g := r.readWindow(key, 0)
	if g.Length != n || g.Token == 0 {
		t.Fatalf("GET_REPLY_RDV: length %d token %d, want %d and a non-zero token", g.Length, g.Token, n)
	}
	// Overwrite, delete, and fill the freed space with other values.
	mustSet(t, c, key, pattern(n, 2))
	if err := c.Delete(opCtx(t), key); err != nil {
		t.Fatalf("Delete while a get lease is open: %v", err)
	}
	for i := range 8 {
		if err := c.Set(opCtx(t), []byte(fmt.Sprintf("churn-%d", i)), pattern(n, uint64(10+i))); err != nil {
			t.Logf("churn set %d: %v (pool full, fine)", i, err)
			break
		}
	}
	got, err := r.readRemote(g.Addr, g.RKey, n)
	if err != nil {
		t.Fatalf("RDMA READ of the leased window after overwrite+delete: %v", err)
	}
	if msg := diffBytes(got, old); msg != "" {
		t.Fatalf("READ of a leased value after overwrite+delete+churn: %s (slot reused under an open lease)", msg)
	}
	r.send(wire.Header{Type: wire.GetRelease, Token: g.Token}, nil, nil)
	// After release the connection stays usable.
	mustNotFound(t, c, key)
	f := r.call(wire.Header{Type: wire.Get, Aux: 4096}, key, nil)
	if f.Status != wire.NotFound {
		t.Errorf("raw GET of a deleted key answered %s %s, want NOT_FOUND", f.Type, f.Status)
	}
}
