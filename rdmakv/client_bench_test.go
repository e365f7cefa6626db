package rdmakv

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
)

// BenchmarkClient measures one client's Set and Get over the TCP transport
// on loopback, eager where the size allows it and rendezvous always, with
// -benchmem showing the per-operation allocations of the data path.
func BenchmarkClient(b *testing.B) {
	s, _ := coreServer(b, func(c *ServerConfig) { c.PoolSize = 64 << 20; c.MaxValue = 4 << 20 })
	clients := map[Protocol]*Client{
		Eager:      coreDial(b, s, WithEagerThreshold(DefaultMaxEager)),
		Rendezvous: coreDial(b, s, WithEagerThreshold(0)),
	}
	key := []byte("bench-key")
	for _, size := range benchSizes {
		for _, p := range []Protocol{Eager, Rendezvous} {
			c := clients[p]
			if c.ProtocolFor(len(key), size) != p {
				continue
			}
			benchSetGet(b, c, fmt.Sprintf("%s/%s", p, coreSizeName(size)), key, size, p)
		}
	}
}

// BenchmarkClientAdaptive is BenchmarkClient's sizes by a client with
// the adaptive policy and, just before each, by one with the fixed
// threshold the policy starts from (eager below 64 KiB, which on loopback
// is the faster), whose receive buffers are as large as the policy's: the
// ratio of the two is the policy's cost per operation, its clock reads,
// its records and its exploration, which sends 2% of each class that may
// go eager by the slower protocol. The 64 B sizes run a third time by a
// client whose threshold is just above them, with receive buffers that
// small: fixed-small against fixed is what the policy's larger buffers
// cost. The policy's first window, when it explores more, is spent before
// it is measured.
func BenchmarkClientAdaptive(b *testing.B) {
	s, _ := coreServer(b, func(c *ServerConfig) { c.PoolSize = 64 << 20; c.MaxValue = 4 << 20 })
	key := []byte("bench-key")
	clients := []*Client{
		coreDial(b, s, WithEagerThreshold(DefaultMaxEager)),
		coreDial(b, s, WithEagerThreshold(DefaultMaxEager), WithAdaptiveThreshold(AdaptiveConfig{})),
		coreDial(b, s, WithEagerThreshold(len(key)+benchSizes[0]+1)),
	}
	pastFirstWindow(b, clients[1], key)
	for _, size := range benchSizes {
		for i, name := range []string{"fixed", "adaptive", "fixed-small"} {
			if i == 2 && size != benchSizes[0] {
				continue
			}
			benchSetGet(b, clients[i], name+"/"+coreSizeName(size), key, size, 0)
		}
	}
}

// pastFirstWindow sets and gets through c until its adaptive policy's
// first window is over.
func pastFirstWindow(b *testing.B, c *Client, key []byte) {
	ctx := context.Background()
	val := coreFill(benchSizes[0], 1)
	for end := nanotime() + int64(DefaultAdaptiveWindow); nanotime() < end; {
		if err := c.Set(ctx, key, val); err != nil {
			b.Fatal(err)
		}
		v, err := c.Get(ctx, key)
		if err != nil {
			b.Fatal(err)
		}
		v.Release()
	}
}

var benchSizes = []int{64, 4 << 10, 64 << 10, 1 << 20}

// benchSetGet runs Set/name and Get/name of size-byte values under key;
// each Get must have come by want, unless it is 0.
func benchSetGet(b *testing.B, c *Client, name string, key []byte, size int, want Protocol) {
	ctx := context.Background()
	val := coreFill(size, 1)
	b.Run("Set/"+name, func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Set(ctx, key, val); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Get/"+name, func(b *testing.B) {
		if err := c.Set(ctx, key, val); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			v, err := c.Get(ctx, key)
			if err != nil {
				b.Fatal(err)
			}
			if len(v.Bytes()) != size || want != 0 && v.Protocol() != want {
				b.Fatalf("got %d bytes via %v", len(v.Bytes()), v.Protocol())
			}
			v.Release()
		}
	})
}

// BenchmarkAdaptivePolicy is the policy alone per request, a set's choice
// and its record, from as many goroutines as Ps on one class: what it
// costs a client shared by many callers.
func BenchmarkAdaptivePolicy(b *testing.B) {
	p := newAdaptivePolicy(AdaptiveConfig{}.withDefaults(), DefaultMaxEager, DefaultEagerThreshold, nanotime)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var last atomic.Uint64 // each goroutine a client of its own
		for pb.Next() {
			start := p.now()
			p.observe(OpSet, 100, p.setProtocol(100, start), start, &last)
		}
	})
}

func coreSizeName(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}
