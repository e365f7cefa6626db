package kvtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// testSlowConsumer is a client that keeps sending requests but never frees
// its receive buffers, so the server cannot deliver its replies (RNR on
// verbs, a full socket on TCP). That must stall only that connection:
// clients connected before and after keep being served, and closing the
// stuck client frees the server from it.
func testSlowConsumer(t *testing.T, env Env) {
	cfg := serverConfig(env)
	cfg.RecvDepth = 16
	s, before := startWithClient(t, env, cfg)
	key := []byte("popular")
	val := pattern(8000, 1) // inline for the stuck client, whose threshold is 16 KiB
	mustSet(t, before, key, val)

	r := rawHello(t, env, s.Addr(), cfg.MaxEager, uint32(cfg.MaxEager))
	r.hold = true
	flood := make(chan struct{})
	go func() {
		defer close(flood)
		var hb [wire.MaxHeaderSize]byte
		for i := range 2000 {
			n := (&wire.Header{Type: wire.Get, ReqID: uint32(i + 100), KeyLen: uint16(len(key)), Aux: uint32(cfg.MaxEager)}).Encode(hb[:])
			if r.conn.Send(hb[:n], key, nil) != nil {
				return // the connection was closed under us
			}
		}
	}()
	// Others carry on while the flood is stuck.
	for i := range 20 {
		mustGetEqual(t, before, key, val)
		roundTrip(t, before, []byte(fmt.Sprintf("busy-%d", i)), []int{100, 20000}[i%2], uint64(i), 0)
	}
	after := dial(t, env, s.Addr())
	for i := range 20 {
		mustGetEqual(t, after, key, val)
		roundTrip(t, after, []byte(fmt.Sprintf("busy2-%d", i)), []int{20000, 100}[i%2], uint64(i), 0)
	}
	select {
	case <-flood:
		t.Logf("all 2000 requests were sent; the server is stuck on its replies")
	default:
		t.Logf("the request flood itself is blocked (backpressure reached the client)")
	}
	r.conn.Close()
	select {
	case <-flood:
	case <-time.After(10 * time.Second):
		t.Errorf("Send on a closed connection still blocked after 10s")
	}
	roundTrip(t, after, []byte("after-close"), 30000, 9, rdmakv.Rendezvous)
}
