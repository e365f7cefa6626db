//go:build rdmavm && linux && cgo

package verbs

import (
	"slices"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// TestSubMRCache: a region keeps at most maxIdleSubMRs idle window MRs,
// evicts the one idle longest, hands a cached range back without a new
// registration, and never evicts one in use.
func TestSubMRCache(t *testing.T) {
	defer func(n int) { maxIdleSubMRs = n }(maxIdleSubMRs)
	maxIdleSubMRs = 3
	_, _, pool := windowServer(t, transport.PollEvent)
	r := pool.(*region)
	if !r.dev.mwByMR {
		t.Fatal("the test device does not need window MRs; this test is for rxe")
	}
	const page = 4096
	take := func(i int) *subMR {
		t.Helper()
		s, err := r.takeSub(i*page, page)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cached := func(want ...int) {
		t.Helper()
		r.subs.mu.Lock()
		defer r.subs.mu.Unlock()
		var got []int
		for k := range r.subs.m {
			got = append(got, k.off/page)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("cached ranges %v, want %v", got, want)
		}
		var idle []int
		for s := r.subs.idle.next; s != nil && s != &r.subs.idle; s = s.next {
			idle = append(idle, s.key.off/page)
		}
		if len(idle) != r.subs.nidle {
			t.Fatalf("idle list holds %v, count says %d", idle, r.subs.nidle)
		}
	}

	subs := make([]*subMR, 5)
	for i := range subs {
		subs[i] = take(i)
	}
	for _, s := range subs {
		r.putSub(s)
	}
	cached(2, 3, 4) // 0 and 1 were idle longest

	if s := take(2); s != subs[2] {
		t.Fatal("a cached range was registered again")
	} else {
		r.putSub(s) // 2 is now the most recently idle
	}
	r.putSub(take(5))
	cached(4, 2, 5)

	busy := take(6)
	for i := 7; i < 11; i++ {
		r.putSub(take(i))
	}
	cached(6, 8, 9, 10)
	if busy.refs != 1 {
		t.Fatalf("range in use has %d references", busy.refs)
	}
	r.putSub(busy) // now the most recently idle: 8 goes
	cached(6, 9, 10)
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	cached()
}
