package rdmakv

import (
	"context"
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
	deadline := time.Now().Add(10 * time.Second)
	for st = s.Stats(); st != (ServerStats{PoolSize: 16 << 20}) && time.Now().Before(deadline); st = s.Stats() {
		time.Sleep(10 * time.Millisecond)
	}
	if st != (ServerStats{PoolSize: 16 << 20}) {
		t.Fatalf("after deletes and closes: %+v, want nothing held", st)
	}
}
