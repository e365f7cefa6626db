package rdmakv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// bandedProfile gives gets and sets opposite thresholds in two bands:
// up to 4 requests in flight gets go eager below 1000 bytes and sets
// below 8000, from 5 on the other way round.
const bandedProfile = `{"kvbench_profile": 1, "default_threshold": 4096, "rules": [
	{"op": "get", "in_flight": [1, 4], "threshold": 1000},
	{"op": "set", "in_flight": [1, 4], "threshold": 8000},
	{"op": "get", "in_flight": [5, 0], "threshold": 8000},
	{"op": "set", "in_flight": [5, 0], "threshold": 1000}
]}`

func bandedTestProfile(t *testing.T) *Profile {
	t.Helper()
	p, err := ParseProfile("banded.json", []byte(bandedProfile))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProfileProtocols: a client under a profile sends each op by its
// own threshold at its load, as the server's counters and the Values
// show.
func TestProfileProtocols(t *testing.T) {
	s, _ := coreServer(t, nil)
	p := bandedTestProfile(t)
	for _, c := range []struct {
		connections int
		get, set    int
	}{{1, 1000, 8000}, {2, 8000, 1000}} {
		t.Run(fmt.Sprintf("connections%d", c.connections), func(t *testing.T) {
			cl := coreDial(t, s, WithProfile(p, c.connections), WithDepth(4))
			for _, n := range []int{10, 4000, 20000} {
				key := []byte(fmt.Sprintf("p%d-%d", c.connections, n))
				checkProfiledOps(t, s, cl, key, n, ProtocolAt(c.get, len(key), n), ProtocolAt(c.set, len(key), n))
			}
		})
	}
}

// checkProfiledOps sets and gets an n-byte value under key and checks
// each took the protocol wanted.
func checkProfiledOps(t *testing.T, s *Server, c *Client, key []byte, n int, get, set Protocol) {
	t.Helper()
	ctx := context.Background()
	if got := c.ProtocolFor(len(key), n); got != set {
		t.Errorf("%d bytes: ProtocolFor %v, want the set's %v", n, got, set)
	}
	before := s.Counters().Requests[OpSet][set]
	if err := c.Set(ctx, key, coreFill(n, 1)); err != nil {
		t.Fatal(err)
	}
	if after := s.Counters().Requests[OpSet][set]; after != before+1 {
		t.Errorf("%d bytes: the server counted no %v set", n, set)
	}
	v, err := c.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Release()
	if v.Protocol() != get || len(v.Bytes()) != n {
		t.Errorf("%d bytes: got %d bytes %v, want %v", n, len(v.Bytes()), v.Protocol(), get)
	}
}

// TestProfileReceiveMemory: the client's receive buffers fit the larger
// of its thresholds.
func TestProfileReceiveMemory(t *testing.T) {
	p := bandedTestProfile(t)
	got := ClientTransportConfig(WithProfile(p, 1), WithDepth(4))
	want := ClientTransportConfig(WithEagerThreshold(8000), WithDepth(4))
	if got != want {
		t.Errorf("under the profile %+v, want as at threshold 8000 %+v", got, want)
	}
}

func TestProfileAboveMaxEagerRefused(t *testing.T) {
	s, _ := coreServer(t, func(c *ServerConfig) { c.MaxEager = 4096 })
	_, err := Dial(context.Background(), s.Addr(), WithTransport("tcp"), WithProfile(bandedTestProfile(t), 1))
	if !errors.Is(err, ErrThreshold) || !strings.Contains(err.Error(), "profile banded.json (get 8000, set 1000 at 64 in flight)") {
		t.Fatalf("Dial with a profile above max eager: %v, want ErrThreshold naming the profile", err)
	}
}

func TestProfileAndThresholdRefused(t *testing.T) {
	s, _ := coreServer(t, nil)
	_, err := Dial(context.Background(), s.Addr(), WithTransport("tcp"), WithEagerThreshold(100), WithProfile(bandedTestProfile(t), 1))
	if err == nil || !strings.Contains(err.Error(), "WithEagerThreshold and WithProfile") {
		t.Fatalf("Dial with both: %v", err)
	}
	_, err = Dial(context.Background(), s.Addr(), WithTransport("tcp"), WithAdaptiveThreshold(AdaptiveConfig{}), WithProfile(bandedTestProfile(t), 1))
	if err == nil || !strings.Contains(err.Error(), "WithProfile and WithAdaptiveThreshold") {
		t.Fatalf("Dial with a profile and the adaptive policy: %v", err)
	}
	_, err = Dial(context.Background(), s.Addr(), WithTransport("tcp"), WithProfile(&Profile{Version: 2}, 0))
	for _, want := range []string{"WithProfile: connections 0", "WithProfile: kvbench_profile 2: want 1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Dial with a bad profile: %v, want %q", err, want)
		}
	}
}
