package kvtest

import (
	"fmt"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// testProfileThresholds dials with a profile whose get and set
// thresholds differ, both ways round: every request straddling either
// threshold takes its own op's protocol, sets as the server counts them
// and gets as the Values say.
func testProfileThresholds(t *testing.T, env Env) {
	s := startServer(t, serverConfig(env))
	for _, th := range [][2]int{{1000, 9000}, {9000, 1000}} {
		p := &rdmakv.Profile{Version: rdmakv.ProfileVersion, Default: 4096, Rules: []rdmakv.ProfileRule{
			{Op: "get", Threshold: th[0]}, {Op: "set", Threshold: th[1]},
		}}
		c := dial(t, env, s.Addr(), rdmakv.WithProfile(p, 1))
		for _, total := range []int{th[0] - 1, th[0], th[1] - 1, th[1]} {
			key := []byte(fmt.Sprintf("profile-%d-%d-%d", th[0], th[1], total))
			t.Run(fmt.Sprintf("get%d-set%d/total%d", th[0], th[1], total), func(t *testing.T) {
				profiledRoundTrip(t, s, c, key, total-len(key), rdmakv.ProtocolAt(th[0], len(key), total-len(key)),
					rdmakv.ProtocolAt(th[1], len(key), total-len(key)))
			})
		}
		c.Close()
	}
}

// profiledRoundTrip sets key to a patterned n-byte value and reads it
// back, checking the set went by set and the get came by get.
func profiledRoundTrip(t *testing.T, s *rdmakv.Server, c *rdmakv.Client, key []byte, n int, get, set rdmakv.Protocol) {
	t.Helper()
	if got := c.ProtocolFor(len(key), n); got != set {
		t.Errorf("ProtocolFor(key %d, value %d) = %v, want the set's %v", len(key), n, got, set)
	}
	val := pattern(n, uint64(n))
	before := s.Counters().Requests[rdmakv.OpSet][set]
	mustSet(t, c, key, val)
	if after := s.Counters().Requests[rdmakv.OpSet][set]; after != before+1 {
		t.Errorf("Set of key %d, value %d: the server counted %d %v sets, want 1", len(key), n, after-before, set)
	}
	if got := mustGetEqual(t, c, key, val); got != get {
		t.Errorf("Get(key %d bytes) of a %d-byte value answered %v, want %v", len(key), n, got, get)
	}
}
