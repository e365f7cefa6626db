package kvtest

import (
	"fmt"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// testZeroCopyGet holds Values (views into client receive memory) while the
// connection keeps working, and checks they are not overwritten before
// Release.
func testZeroCopyGet(t *testing.T, env Env) {
	_, c := startWithClient(t, env, serverConfig(env))
	for i, n := range []int{100, 20000} {
		key := []byte(fmt.Sprintf("zc-%d", n))
		want := pattern(n, uint64(i))
		mustSet(t, c, key, want)
		v, err := c.Get(opCtx(t), key)
		if err != nil {
			t.Fatalf("Get(%q): %v", key, err)
		}
		// Traffic of both protocols, including an overwrite of the very key
		// being held, must not touch the held view.
		for j, m := range []int{100, 20000, 50, 30000} {
			other := []byte(fmt.Sprintf("zc-other-%d", j))
			roundTrip(t, c, other, m, uint64(100+j), 0)
		}
		mustSet(t, c, key, pattern(n, 777))
		if msg := diffBytes(v.Bytes(), want); msg != "" {
			t.Errorf("held %d-byte %v Value changed before Release while the connection was used: %s", n, v.Protocol(), msg)
		}
		v.Release()
		if b := v.Bytes(); b != nil {
			t.Errorf("%d-byte %v Value: Bytes() after Release = %d bytes, want nil (documented)", n, v.Protocol(), len(b))
		}
		v.Release() // documented harmless
		mustGetEqual(t, c, key, pattern(n, 777))
	}
}

// testHeldValues holds as many Values as the client's depth allows, without
// releasing any, and checks none of the Gets deadlocks and all stay intact.
func testHeldValues(t *testing.T, env Env) {
	const depth = 8
	_, c := startWithClient(t, env, serverConfig(env), rdmakv.WithDepth(depth))
	sizes := []int{10, 9000, 200, 70000, 1, 5000, 3000, 100000}
	keys := make([][]byte, len(sizes))
	for i, n := range sizes {
		keys[i] = []byte(fmt.Sprintf("held-%d", i))
		mustSet(t, c, keys[i], pattern(n, uint64(i)))
	}
	held := make([]*rdmakv.Value, 0, depth)
	for i := range depth {
		v, err := c.Get(opCtx(t), keys[i%len(keys)])
		if err != nil {
			t.Fatalf("Get #%d while holding %d Values (depth %d): %v", i+1, len(held), depth, err)
		}
		held = append(held, v)
	}
	for i, v := range held {
		if msg := diffBytes(v.Bytes(), pattern(sizes[i%len(sizes)], uint64(i%len(sizes)))); msg != "" {
			t.Errorf("held Value #%d (%v): %s", i, v.Protocol(), msg)
		}
	}
	for _, v := range held {
		v.Release()
	}
	// With everything released the connection is fully usable again.
	for i := range 2 * depth {
		mustGetEqual(t, c, keys[i%len(keys)], pattern(sizes[i%len(sizes)], uint64(i%len(sizes))))
	}
}

// testManyHeldEager holds many more eager Values than the client has
// receive buffers (its depth plus a few), from one goroutine that releases
// none until the end: holding a Value must not starve the receives that
// later replies need, so no Get may stall, and every held Value stays
// intact, also after the keys are overwritten.
func testManyHeldEager(t *testing.T, env Env) {
	const depth, hold = 4, 64
	_, c := startWithClient(t, env, serverConfig(env), rdmakv.WithDepth(depth))
	sizes := []int{100, 0, 3000, 1}
	for i, n := range sizes {
		mustSet(t, c, []byte(fmt.Sprintf("many-%d", i)), pattern(n, uint64(i)))
	}
	held := make([]*rdmakv.Value, 0, hold)
	defer func() {
		for _, v := range held {
			v.Release()
		}
	}()
	for i := range hold {
		v, err := c.Get(opCtx(t), []byte(fmt.Sprintf("many-%d", i%len(sizes))))
		if err != nil {
			t.Fatalf("Get #%d while holding %d eager Values (depth %d): %v", i+1, len(held), depth, err)
		}
		if v.Protocol() != rdmakv.Eager {
			t.Fatalf("Get #%d answered %v, want eager", i+1, v.Protocol())
		}
		held = append(held, v)
	}
	for i := range sizes {
		mustSet(t, c, []byte(fmt.Sprintf("many-%d", i)), pattern(sizes[i], 999))
	}
	for i, v := range held {
		if msg := diffBytes(v.Bytes(), pattern(sizes[i%len(sizes)], uint64(i%len(sizes)))); msg != "" {
			t.Errorf("held eager Value #%d: %s", i, msg)
		}
	}
}

// testStaleRelease calls Release a second time after other Gets have run.
// The API promises a second Release is harmless; it must not release a
// Value some later Get handed out (Values may be pooled).
func testStaleRelease(t *testing.T, env Env) {
	_, c := startWithClient(t, env, serverConfig(env))
	for _, n := range []int{100, 20000} {
		a, b := pattern(n, 1), pattern(n, 2)
		mustSet(t, c, []byte("stale-a"), a)
		mustSet(t, c, []byte("stale-b"), b)
		v1, err := c.Get(opCtx(t), []byte("stale-a"))
		if err != nil {
			t.Fatalf("Get(stale-a): %v", err)
		}
		v1.Release()
		v2, err := c.Get(opCtx(t), []byte("stale-b"))
		if err != nil {
			t.Fatalf("Get(stale-b): %v", err)
		}
		proto := v2.Protocol()
		v1.Release() // the late second call
		// Traffic that would reuse whatever v1's late Release freed.
		for i := range 4 {
			mustGetEqual(t, c, []byte("stale-a"), a)
			roundTrip(t, c, []byte("stale-other"), n, uint64(10+i), 0)
		}
		if msg := diffBytes(v2.Bytes(), b); msg != "" {
			t.Errorf("%d-byte %v Value: a second Release of an earlier Value, after this one was handed out, changed it: %s (shared, pooled Value object?)",
				n, proto, msg)
		}
		v2.Release()
	}
}
