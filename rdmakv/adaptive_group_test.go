package rdmakv

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// Clients of one group share a policy: what one sends, the other's state
// counts, and a client asking for other settings is refused, naming them,
// while the group's clients go on.
func TestAdaptiveGroupShares(t *testing.T) {
	s, _ := coreServer(t, nil)
	g := NewAdaptiveGroup()
	a := coreDial(t, s, WithAdaptiveThreshold(AdaptiveConfig{Group: g}))
	b := coreDial(t, s, WithAdaptiveThreshold(AdaptiveConfig{Group: g}))
	ctx := context.Background()
	for range 10 {
		if err := a.Set(ctx, []byte("k"), make([]byte, 100)); err != nil {
			t.Fatal(err)
		}
	}
	sets := func(c *Client) (n uint64) {
		for _, k := range c.AdaptiveState() {
			if k.Op == OpSet {
				n += k.EagerRequests + k.RendezvousRequests
			}
		}
		return n
	}
	if sets(a) != 10 || sets(b) != 10 {
		t.Errorf("after 10 sets on one client of the group: %d and %d counted, want 10 by both", sets(a), sets(b))
	}
	alone := coreDial(t, s, WithAdaptiveThreshold(AdaptiveConfig{}))
	if n := sets(alone); n != 0 {
		t.Errorf("a client of no group counts %d sets, want its own 0", n)
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := Dial(dctx, s.Addr(), WithTransport("tcp"), WithAdaptiveThreshold(AdaptiveConfig{Group: g, Explore: 0.1}))
	if !errors.Is(err, ErrThreshold) || !strings.Contains(err.Error(), "Explore:0.1") {
		t.Errorf("a client asking the group for other settings: %v, want ErrThreshold naming them", err)
	}
	if err := b.Set(ctx, []byte("k"), make([]byte, 100)); err != nil || sets(a) != 11 {
		t.Errorf("the group after a refusal: %v, %d sets counted, want 11", err, sets(a))
	}
}
