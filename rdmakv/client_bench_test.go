package rdmakv

import (
	"context"
	"fmt"
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
	ctx := context.Background()
	key := []byte("bench-key")
	for _, size := range []int{64, 4 << 10, 64 << 10, 1 << 20} {
		for _, p := range []Protocol{Eager, Rendezvous} {
			c := clients[p]
			if c.ProtocolFor(len(key), size) != p {
				continue
			}
			val := coreFill(size, 1)
			name := fmt.Sprintf("%s/%s", p, coreSizeName(size))
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
					if len(v.Bytes()) != size || v.Protocol() != p {
						b.Fatalf("got %d bytes via %v", len(v.Bytes()), v.Protocol())
					}
					v.Release()
				}
			})
		}
	}
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
