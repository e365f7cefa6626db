package kvtest

import (
	"fmt"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// adaptive is a policy that explores a quarter of its requests, so that
// a short case sends every size both ways.
var adaptive = rdmakv.WithAdaptiveThreshold(rdmakv.AdaptiveConfig{Explore: 0.25})

// testAdaptive runs the round trips and the shared-client stress with the
// adaptive threshold policy, whose default largest threshold is above the
// suite's max eager (Dial fits it to the server's): whatever protocol the
// policy sends a request by, its value round-trips.
func testAdaptive(t *testing.T, env Env) {
	s := startServer(t, serverConfig(env))
	c := dial(t, env, s.Addr(), adaptive)
	if l := c.Limits(); c.ProtocolFor(0, l.MaxEager) != rdmakv.Rendezvous {
		t.Fatalf("the policy may send %d bytes eager, the server's max eager", l.MaxEager)
	}
	for round := range 4 {
		for i, n := range valueSizes(min(env.MaxValue, 1<<20)) {
			key := []byte(fmt.Sprintf("adaptive-%d", i))
			roundTrip(t, c, key, int(n), uint64(round*100+i), 0)
		}
	}
	clients := dialN(t, env, s.Addr(), 2, adaptive, rdmakv.WithDepth(4))
	st := newStress(8, "adaptive")
	st.run(t, 8, 24, func(w int) *rdmakv.Client { return clients[w%2] })
	if !t.Failed() {
		st.verify(t, clients[0])
	}
}
