// Package kvtest is the conformance suite every rdmakv transport must pass.
// One suite, parameterised by transport, so the TCP emulation and the verbs
// transport are held to exactly the same behaviour: a transport test file
// calls Run with its Env and gets every case as a subtest.
package kvtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// Env describes the transport under test.
type Env struct {
	// Transport is the registered transport name (rdmakv.TransportTCP or
	// rdmakv.TransportVerbs); the caller imports the transport package so
	// it is registered.
	Transport string
	// Addr is the host:port servers listen on; port 0 picks a free port.
	Addr string
	// MaxValue is the largest value the suite moves. Slow links (Soft-RoCE
	// under emulation) pass a few MiB; zero means 1 MiB.
	MaxValue int64
	// Clients is the number of concurrent clients in the stress case; zero
	// means 8.
	Clients int
	// Depth is the depth of the clients a case dials without choosing
	// one; zero means the client's default. At depth 1 a transport may
	// let the caller read its own reply (transport.CallerReader), a path
	// of its own that the suite then covers.
	Depth int
	// NetConn, on tcp, has every server, client and peer of the suite
	// read and write its sockets through the standard net.Conn
	// (transport.Config.NetConn) rather than raw system calls, so that
	// the suite holds both paths to the same behaviour.
	NetConn bool
}

func (e Env) withDefaults() Env {
	if e.MaxValue <= 0 {
		e.MaxValue = 1 << 20
	}
	if e.Clients <= 0 {
		e.Clients = 8
	}
	return e
}

// caseTimeout bounds every case; it is a hang guard, not a measurement.
const caseTimeout = 45 * time.Second

// Run runs every conformance case as a subtest of t. Each case starts its
// own server(s), so cases do not share state and a failure stays local.
func Run(t *testing.T, env Env) {
	if env.Transport == "" || env.Addr == "" {
		t.Fatalf("kvtest.Run: Env needs Transport and Addr, got %+v", env)
	}
	env = env.withDefaults()
	cases := []struct {
		name string
		fn   func(*testing.T, Env)
	}{
		{"Limits", testLimits},
		{"BadConfig", testBadConfig},
		{"HandshakeTimeout", testHandshakeTimeout},
		{"MaxConns", testMaxConns},
		{"IdleHandshakesShed", testIdleHandshakesShed},
		{"IdleHandshakesDoNotCount", testIdleHandshakesDoNotCount},
		{"UnansweredChallengeShed", testUnansweredChallengeShed},
		{"RoundTripThreshold", testRoundTripThreshold},
		{"KeysAboveThreshold", testKeysAboveThreshold},
		{"RoundTripSizes", testRoundTripSizes},
		{"ThresholdZero", testThresholdZero},
		{"ThresholdMaxEager", testThresholdMaxEager},
		{"ThresholdAboveMaxEager", testThresholdAboveMaxEager},
		{"ProfileThresholds", testProfileThresholds},
		{"Adaptive", testAdaptive},
		{"DeleteNotFound", testDeleteNotFound},
		{"Overwrite", testOverwrite},
		{"EmptyKey", testEmptyKey},
		{"KeyTooLong", testKeyTooLong},
		{"ValueTooLarge", testValueTooLarge},
		{"PoolExhausted", testPoolExhausted},
		{"ZeroCopyGet", testZeroCopyGet},
		{"ManyHeldEager", testManyHeldEager},
		{"StaleRelease", testStaleRelease},
		{"HeldValuesUpToDepth", testHeldValues},
		{"StagingOverflow", testStagingOverflow},
		{"Concurrency", testConcurrency},
		{"SharedClients", testSharedClients},
		{"RendezvousGetIsolation", testRendezvousGetIsolation},
		{"RendezvousGetIsolationRaw", testRendezvousGetIsolationRaw},
		{"VanishingClientLease", testVanishingClient},
		{"GetLeaseExpiry", testGetLeaseExpiry},
		{"PeerInvalidate", testPeerInvalidate},
		{"Trace", testTrace},
		{"ServerStats", testServerStats},
		{"RawStatuses", testRawStatuses},
		{"MisbehavingClients", testMisbehaving},
		{"SlowConsumer", testSlowConsumer},
		{"HeadOfLine", func(t *testing.T, env Env) { testHeadOfLine(t, env, false) }},
		{"HeadOfLineWindows", func(t *testing.T, env Env) { testHeadOfLine(t, env, true) }},
		{"Auth", testAuth},
		{"Timeout", testTimeout},
		{"LateReplies", testLateReplies},
		{"LateFlood", testLateFlood},
		{"Close", testClose},
		{"CloseInFlight", testCloseInFlight},
		{"ServerCloseInFlight", testServerCloseInFlight},
		{"HeldValueSurvivesServer", testHeldValueSurvivesServer},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			guard(t, caseTimeout, func() { c.fn(t, env) })
		})
	}
}

// guard runs fn on the test goroutine (so t.Fatal works as usual) while a
// watchdog waits d. A hung case would otherwise stall the whole run until
// the go test deadline with no hint of which case hung; the watchdog names
// the case, dumps every goroutine and aborts the run.
func guard(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	defer close(done)
	name := t.Name()
	go func() {
		select {
		case <-done:
		case <-time.After(d):
			buf := make([]byte, 1<<22)
			n := runtime.Stack(buf, true)
			fmt.Fprintf(os.Stderr, "kvtest: %s still running after %v (hang guard)\n%s\n", name, d, buf[:n])
			panic("kvtest: " + name + " hung")
		}
	}()
	fn()
}

// opCtx is the context for one operation: the client's own timeout is the
// primary bound, this only keeps a broken client from hanging the case.
func opCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func mustSet(t *testing.T, c *rdmakv.Client, key, value []byte) {
	t.Helper()
	if err := c.Set(opCtx(t), key, value); err != nil {
		t.Fatalf("Set(key %d bytes %q, value %d bytes): %v", len(key), short(key), len(value), err)
	}
}

// mustGetEqual gets key and checks its bytes against want; it returns the
// protocol the server answered with.
func mustGetEqual(t *testing.T, c *rdmakv.Client, key, want []byte) rdmakv.Protocol {
	t.Helper()
	v, err := c.Get(opCtx(t), key)
	if err != nil {
		t.Fatalf("Get(key %q) after Set of %d bytes: %v", short(key), len(want), err)
	}
	defer v.Release()
	if msg := diffBytes(v.Bytes(), want); msg != "" {
		t.Fatalf("Get(key %q): %s", short(key), msg)
	}
	return v.Protocol()
}

func mustNotFound(t *testing.T, c *rdmakv.Client, key []byte) {
	t.Helper()
	v, err := c.Get(opCtx(t), key)
	if err == nil {
		n := len(v.Bytes())
		v.Release()
		t.Fatalf("Get(key %q) = %d bytes, want ErrNotFound", short(key), n)
	}
	if !errors.Is(err, rdmakv.ErrNotFound) {
		t.Fatalf("Get(key %q) error = %v, want ErrNotFound", short(key), err)
	}
}

// short keeps failure messages readable when keys are kilobytes long.
func short(b []byte) string {
	if len(b) <= 40 {
		return string(b)
	}
	return string(b[:32]) + "...(" + itoa(len(b)) + " bytes)"
}
