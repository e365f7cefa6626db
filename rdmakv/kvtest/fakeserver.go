package kvtest

import (
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// A fake server speaks just enough of the protocol, straight over the
// transport, to fail in ways the real server never does: answering late,
// or not at all.

// fakeMaxEager is the eager limit a fake server announces; its receive
// buffers are sized for it.
const fakeMaxEager = 16 << 10

// lookup is env's transport.
func lookup(t *testing.T, env Env) transport.Network {
	t.Helper()
	n, err := transport.Lookup(env.Transport)
	if err != nil {
		t.Fatalf("transport.Lookup(%q): %v", env.Transport, err)
	}
	return n
}

// listenFake listens on env.Addr, handing accepted connections to accept,
// and registers the 1 MiB region the fake server grants its windows in.
// Both close when the test ends.
func listenFake(t *testing.T, env Env, accept transport.AcceptFunc) (transport.Listener, transport.Region) {
	t.Helper()
	cfg := transport.Config{MaxMessage: wire.MaxHeaderSize + fakeMaxEager + wire.MaxKeyLen, RecvDepth: 64, SendDepth: 64, NetConn: env.NetConn}
	ln, err := lookup(t, env).Listen(env.Addr, cfg, accept)
	if err != nil {
		t.Fatalf("listen for a fake server: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	region, err := ln.Register(1<<20, transport.AccessRemoteRead|transport.AccessRemoteWrite)
	if err != nil {
		t.Fatalf("fake server Register: %v", err)
	}
	t.Cleanup(func() { region.Close() })
	return ln, region
}

// fakeLimits is the HELLO_REPLY body of a fake server whose windows stay
// open for leaseMillis.
func fakeLimits(leaseMillis uint32) []byte {
	body := make([]byte, wire.LimitsSize)
	(&wire.Limits{PoolSize: 1 << 20, MaxValue: 1 << 20, MaxEager: fakeMaxEager, MaxKey: 1024,
		LeaseMillis: leaseMillis, MaxInflight: 64}).Encode(body)
	return body
}
