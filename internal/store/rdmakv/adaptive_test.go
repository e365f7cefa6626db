package rdmakvstore

import (
	"context"
	"slices"
	"testing"

	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/rdmakv"
)

// A connection dialed at the adaptive threshold takes the run's adaptive
// settings: its policy has the classes max_threshold allows, the sizes
// above it going rendezvous together, and without settings rdmakv's
// default max eager. The server takes the default either way, so only
// the settings make the difference.
func TestDialAdaptiveSettings(t *testing.T) {
	for _, c := range []struct {
		cfg  rdmakv.AdaptiveConfig
		most int
	}{
		{rdmakv.AdaptiveConfig{MaxThreshold: 16 << 10, Explore: 0.1}, 16 << 10},
		{rdmakv.AdaptiveConfig{}, rdmakv.DefaultMaxEager},
	} {
		ctx := context.Background()
		s, err := Open(ctx, store.Config{Transport: "tcp", Keys: 1, KeySize: 4, MaxValue: 64, Connections: 1, Depth: 1,
			MaxThreshold: rdmakv.DefaultMaxEager, Adaptive: c.cfg})
		if err != nil {
			t.Fatal(err)
		}
		conn, err := s.Dial(ctx, store.AdaptiveThreshold)
		if err != nil {
			s.Close()
			t.Fatal(err)
		}
		st := conn.(store.AdaptiveReporter).AdaptiveState()
		conn.Close()
		s.Close()
		if len(st) == 0 {
			t.Fatalf("%+v: no adaptive classes", c.cfg)
		}
		last := st[len(st)-1]
		if last.Lower != c.most || last.Choice != rdmakv.Rendezvous {
			t.Errorf("%+v: the last class starts at %d by %v, want the rendezvous ones from %d", c.cfg, last.Lower, last.Choice, c.most)
		}
	}
}

// The adaptive connections open at once share a policy, which one of
// them reports; once they have all closed, the next set learns afresh;
// with AdaptivePerConnection each has its own.
func TestDialAdaptiveGroup(t *testing.T) {
	ctx := context.Background()
	for _, alone := range []bool{false, true} {
		s, err := Open(ctx, store.Config{Transport: "tcp", Keys: 1, KeySize: 4, MaxValue: 64, Connections: 2, Depth: 1,
			MaxThreshold: rdmakv.DefaultMaxEager, AdaptivePerConnection: alone})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		dial := func() store.Conn {
			c, err := s.Dial(ctx, store.AdaptiveThreshold)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		// sets is what each connection reports of the sets made.
		sets := func(conns ...store.Conn) (out []uint64) {
			for _, c := range conns {
				var n uint64
				for _, k := range c.(store.AdaptiveReporter).AdaptiveState() {
					if k.Op == rdmakv.OpSet {
						n += k.EagerRequests + k.RendezvousRequests
					}
				}
				out = append(out, n)
			}
			return out
		}
		a, b := dial(), dial()
		for _, c := range []store.Conn{a, b, b} {
			if _, err := c.Set(ctx, []byte("k"), []byte("v")); err != nil {
				t.Fatal(err)
			}
		}
		want := []uint64{3, 0}
		if alone {
			want = []uint64{1, 2}
		}
		if got := sets(a, b); !slices.Equal(got, want) {
			t.Errorf("per connection %v: the two report %v sets, want %v", alone, got, want)
		}
		a.Close()
		want = []uint64{3}
		if alone {
			want = []uint64{2}
		}
		if got := sets(b); !slices.Equal(got, want) {
			t.Errorf("per connection %v: after the first closed the other reports %v, want %v", alone, got, want)
		}
		b.Close()
		c := dial()
		if got := sets(c); got[0] != 0 {
			t.Errorf("per connection %v: a connection dialled after the set closed counts %d sets, want a fresh 0", alone, got[0])
		}
		c.Close()
	}
}
