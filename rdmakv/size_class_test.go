package rdmakv

import (
	"context"
	"maps"
	"math"
	"testing"
)

func TestSizeClass(t *testing.T) {
	for _, c := range []struct {
		n            uint64
		k            SizeClass
		lower, upper int64
	}{
		{0, 0, 0, 1}, {1, 1, 1, 2}, {3, 2, 2, 4}, {4095, 12, 2048, 4096}, {4096, 13, 4096, 8192},
		{1<<32 + 1<<16, 33, 1 << 32, math.MaxInt64}, {math.MaxUint64, LastSizeClass, 1 << 32, math.MaxInt64},
	} {
		k := SizeClassOf(c.n)
		if k != c.k || k.Lower() != c.lower || k.Upper() != c.upper {
			t.Errorf("SizeClassOf(%d) = %d [%d, %d), want %d [%d, %d)", c.n, k, k.Lower(), k.Upper(), c.k, c.lower, c.upper)
		}
	}
}

// TestServerCountersBySize: each request counts under its size class of
// key plus value and the protocol it took at its client's threshold; a
// GET by the value found, a miss by its key. The closed connection's
// counts and the open one's add up.
func TestServerCountersBySize(t *testing.T) {
	s, _ := coreServer(t, nil)
	ctx := context.Background()
	low := coreDial(t, s, WithEagerThreshold(1024))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(low.Set(ctx, []byte("k1"), make([]byte, 100)))  // 102 B: class 7, eager
	must(low.Set(ctx, []byte("k2"), make([]byte, 3000))) // 3002 B: class 12, rendezvous
	for _, k := range []string{"k1", "k2", "nope"} {
		_, _ = low.Get(ctx, []byte(k))
	}
	must(low.Delete(ctx, []byte("k1")))
	low.Close()
	await(t, "the connection's close", func() bool { return s.Stats().Conns == 0 })

	high := coreDial(t, s, WithEagerThreshold(4096))
	v, err := high.Get(ctx, []byte("k2")) // eager below 4 KiB
	must(err)
	v.Release()
	must(high.Set(ctx, []byte("k3"), make([]byte, 3000)))

	want := map[RequestClass]uint64{
		{OpSet, Eager, 7}: 1, {OpSet, Rendezvous, 12}: 1, {OpSet, Eager, 12}: 1,
		{OpGet, Eager, 7}: 1, {OpGet, Rendezvous, 12}: 1, {OpGet, Eager, 12}: 1, {OpGet, Eager, 3}: 1,
		{OpDelete, Eager, 2}: 1,
	}
	got := s.Counters()
	if !maps.Equal(got.RequestsBySize, want) {
		t.Errorf("requests by size %v, want %v", got.RequestsBySize, want)
	}
	if got.Requests[OpGet][Eager] != 3 || got.Requests[OpSet][Rendezvous] != 1 {
		t.Errorf("requests %v: not the sums of the classes", got.Requests)
	}
}
