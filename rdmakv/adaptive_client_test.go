package rdmakv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// TestClientAdaptiveRoundTrips sets and gets values of mixed sizes with
// the adaptive policy exploring a quarter of its requests: every value
// round-trips, AdaptiveState counts each request under the class and the
// protocol it went by (a set's as SetVia said, a get's as its reply), and every class eager
// may serve saw both protocols.
func TestClientAdaptiveRoundTrips(t *testing.T) {
	s, _ := coreServer(t, nil)
	c := coreDial(t, s, WithAdaptiveThreshold(AdaptiveConfig{Explore: 0.25}))
	ctx := context.Background()
	sizes := []int{0, 100, 1000, 5000, 20000, 60000, 100000, 1 << 20}
	type count struct{ class, proto int }
	counts := [2]map[count]uint64{{}, {}} // sets by what SetVia said, gets by what the values said
	for round := range 100 {
		for i, n := range sizes {
			key, val := []byte(fmt.Sprintf("k%d", i)), coreFill(n, byte(round+i))
			k := bits.Len(uint(len(key) + n))
			p, err := c.SetVia(ctx, key, val)
			if err != nil {
				t.Fatal(err)
			}
			counts[0][count{k, int(p)}]++
			v, err := c.Get(ctx, key)
			if err != nil || !bytes.Equal(v.Bytes(), val) {
				t.Fatalf("get %d bytes: %v", n, err)
			}
			counts[1][count{k, int(v.Protocol())}]++
			v.Release()
		}
	}
	for _, a := range c.AdaptiveState() {
		k, n := bits.Len(uint(a.Lower)), counts[1]
		if a.Op == OpSet {
			n = counts[0]
		}
		if a.Upper != math.MaxInt && (n[count{k, int(Eager)}] != a.EagerRequests || n[count{k, int(Rendezvous)}] != a.RendezvousRequests) {
			t.Errorf("%v class %d: state counts %d eager, %d rendezvous; the requests said %d, %d",
				a.Op, a.Lower, a.EagerRequests, a.RendezvousRequests, n[count{k, int(Eager)}], n[count{k, int(Rendezvous)}])
		}
		if a.Upper <= DefaultMaxEager && a.EagerRequests+a.RendezvousRequests > 0 && (a.EagerRequests == 0 || a.RendezvousRequests == 0) {
			t.Errorf("%v class %d-%d: %d eager, %d rendezvous: not both explored", a.Op, a.Lower, a.Upper, a.EagerRequests, a.RendezvousRequests)
		}
		if a.Upper > DefaultMaxEager && a.EagerRequests != 0 {
			t.Errorf("%v class from %d: %d eager above max eager", a.Op, a.Lower, a.EagerRequests)
		}
	}
}

// TestClientAdaptiveMaxThreshold: left to its default, the largest
// threshold fits itself to a server with a lower max eager; asked for
// above it, Dial fails as a fixed threshold does.
func TestClientAdaptiveMaxThreshold(t *testing.T) {
	s, _ := coreServer(t, func(c *ServerConfig) { c.MaxEager = 8192 })
	c := coreDial(t, s, WithAdaptiveThreshold(AdaptiveConfig{}))
	st := c.AdaptiveState()
	if beyond := st[len(st)-1]; beyond.Lower != 8192 || c.opts.threshold != 8192 {
		t.Errorf("against max eager 8192: HELLO threshold %d, eager classes end at %d", c.opts.threshold, beyond.Lower)
	}
	if c.ProtocolFor(1, 100) != Eager || c.ProtocolFor(1, 5000) != Rendezvous {
		t.Error("the policy does not start at the default threshold")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Dial(ctx, s.Addr(), WithTransport("tcp"), WithAdaptiveThreshold(AdaptiveConfig{MaxThreshold: 16384}))
	if !errors.Is(err, ErrThreshold) {
		t.Errorf("MaxThreshold above max eager: %v, want ErrThreshold", err)
	}
	if got := ClientTransportConfig(WithAdaptiveThreshold(AdaptiveConfig{})).MaxMessage; got != wire.MaxHeaderSize+DefaultMaxEager {
		t.Errorf("receive buffers of %d bytes, want %d for the default largest threshold", got, wire.MaxHeaderSize+DefaultMaxEager)
	}
}

// TestClientAdaptiveZeroAllocs holds the adaptive client to the data
// path's zero allocations, with a window short enough that classes are
// judged during the count.
func TestClientAdaptiveZeroAllocs(t *testing.T) {
	s, _ := coreServer(t, nil)
	cfg := AdaptiveConfig{Explore: 0.5, Window: 16 * time.Millisecond, Dwell: time.Millisecond}
	testZeroAllocs(t, coreDial(t, s, WithAdaptiveThreshold(cfg)))
	testZeroAllocs(t, coreDial(t, s, WithAdaptiveThreshold(cfg), WithDepth(1)))
}

func TestAdaptiveConfigValidate(t *testing.T) {
	for _, cfg := range []AdaptiveConfig{
		{MaxThreshold: MaxEagerLimit + 1}, {Explore: 0.6}, {Explore: -1}, {Window: -1}, {Window: time.Microsecond},
		{Margin: 1}, {BackMargin: -0.1}, {Samples: maxAdaptiveSamples + 1},
	} {
		o := defaultOptions()
		WithAdaptiveThreshold(cfg)(&o)
		if o.validate() == nil {
			t.Errorf("%+v: valid", cfg)
		}
	}
	err := AdaptiveConfig{Explore: 0.6, Dwell: -1, Margin: 1, BackMargin: 0.3}.Validate()
	for _, want := range []string{"explore 0.6", "dwell -1ns", "margin 1 "} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want every problem, %q among them", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "back margin") {
		t.Errorf("Validate: %v, blames a good back margin", err)
	}
}
