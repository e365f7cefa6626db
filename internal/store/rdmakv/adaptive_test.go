package rdmakvstore

import (
	"context"
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
