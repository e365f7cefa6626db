package rdmakv

import (
	"sync/atomic"
	"testing"
)

// A request is charged what its client's next request took beyond its
// own class's mean, and only by a next request that began after it ended:
// one already in flight was waiting on the client's other requests.
func TestChargeOnlyAfterTheLastEnded(t *testing.T) {
	p := newAdaptivePolicy(AdaptiveConfig{}.withDefaults(), DefaultMaxEager, DefaultEagerThreshold, func() int64 { return 0 })
	small, big := p.ops[0].class(100), p.ops[0].class(20000)
	small.mean[Eager-1].Store(10_000)
	var last atomic.Uint64
	charges := func() uint64 { return big.after[Rendezvous-1].n.Load() }

	p.charge(&last, big, Rendezvous, 0, 100_000, 0)
	p.charge(&last, small, Eager, 90_000, 125_000, 0) // began before the big one ended
	if n := charges(); n != 0 {
		t.Fatalf("an overlapping request charged the one before it: %d charges", n)
	}
	p.charge(&last, big, Rendezvous, 130_000, 200_000, 0)
	p.charge(&last, small, Eager, 200_000, 260_000, 0) // 60 µs against a mean of 10
	if n := charges(); n != 1 {
		t.Fatalf("%d charges, want 1", n)
	}
	var got []uint32
	got = big.after[Rendezvous-1].recent(got, 0, 1000)
	if len(got) != 1 || int64(got[0])-afterBias != 50_000 {
		t.Errorf("charge %v, want 50µs above the mean", got)
	}
}
