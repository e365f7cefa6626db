package kvtest

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

func testDeleteNotFound(t *testing.T, env Env) {
	_, c := startWithClient(t, env, serverConfig(env))
	mustNotFound(t, c, []byte("never-set"))
	if err := c.Delete(opCtx(t), []byte("never-set")); !errors.Is(err, rdmakv.ErrNotFound) {
		t.Errorf("Delete of a key never set: %v, want ErrNotFound", err)
	}
	for i, n := range []int{10, 8000} { // one eager, one rendezvous value
		key := []byte(fmt.Sprintf("del-%d", n))
		mustSet(t, c, key, pattern(n, uint64(i)))
		if err := c.Delete(opCtx(t), key); err != nil {
			t.Fatalf("Delete(%q) of a %d-byte value: %v", key, n, err)
		}
		mustNotFound(t, c, key)
		if err := c.Delete(opCtx(t), key); !errors.Is(err, rdmakv.ErrNotFound) {
			t.Errorf("second Delete(%q): %v, want ErrNotFound", key, err)
		}
		// Set again after delete must work.
		roundTrip(t, c, key, n, uint64(i+10), 0)
	}
}

func testOverwrite(t *testing.T, env Env) {
	_, c := startWithClient(t, env, serverConfig(env))
	key := []byte("overwrite")
	// Every transition: eager->eager, eager->rdv, rdv->rdv (bigger and
	// smaller), rdv->eager, and to empty.
	sizes := []int{5, 100, 20000, 300000, 9000, 7, 0, 64 << 10}
	var prev []byte
	for i, n := range sizes {
		val := pattern(n, uint64(1000+i))
		mustSet(t, c, key, val)
		v, err := c.Get(opCtx(t), key)
		if err != nil {
			t.Fatalf("Get after overwrite #%d (%d -> %d bytes): %v", i, len(prev), n, err)
		}
		got := bytes.Clone(v.Bytes())
		v.Release()
		if msg := diffBytes(got, val); msg != "" {
			if prev != nil && bytes.Equal(got, prev) {
				t.Fatalf("overwrite #%d (%d -> %d bytes): Get returned the old value", i, len(prev), n)
			}
			t.Fatalf("overwrite #%d (%d -> %d bytes): %s", i, len(prev), n, msg)
		}
		prev = val
	}
}

// testEmptyKey asserts what docs/PROTOCOL.md specifies: the empty key is a
// key like any other (it can be set, read, deleted).
func testEmptyKey(t *testing.T, env Env) {
	_, c := startWithClient(t, env, serverConfig(env))
	mustNotFound(t, c, nil)
	roundTrip(t, c, nil, 10, 1, rdmakv.Eager)
	roundTrip(t, c, []byte{}, 9000, 2, rdmakv.Rendezvous)
	if err := c.Delete(opCtx(t), nil); err != nil {
		t.Fatalf("Delete(empty key): %v", err)
	}
	mustNotFound(t, c, []byte{})
}

func testKeyTooLong(t *testing.T, env Env) {
	cfg := serverConfig(env)
	_, c := startWithClient(t, env, cfg)
	// The longest legal key works, eager and rendezvous.
	roundTrip(t, c, pattern(cfg.MaxKey, 1), 10, 2, rdmakv.Eager)
	roundTrip(t, c, pattern(cfg.MaxKey, 3), 10000, 4, rdmakv.Rendezvous)
	for _, n := range []int{cfg.MaxKey + 1, 4 * cfg.MaxKey} {
		key := pattern(n, 5)
		for _, vn := range []int{10, 10000} {
			if err := c.Set(opCtx(t), key, pattern(vn, 6)); !errors.Is(err, rdmakv.ErrKeyTooLong) {
				t.Errorf("Set with a %d-byte key (max %d), %d-byte value: %v, want ErrKeyTooLong", n, cfg.MaxKey, vn, err)
			}
		}
		if v, err := c.Get(opCtx(t), key); !errors.Is(err, rdmakv.ErrKeyTooLong) {
			if err == nil {
				v.Release()
			}
			t.Errorf("Get with a %d-byte key (max %d): %v, want ErrKeyTooLong", n, cfg.MaxKey, err)
		}
		if err := c.Delete(opCtx(t), key); !errors.Is(err, rdmakv.ErrKeyTooLong) {
			t.Errorf("Delete with a %d-byte key (max %d): %v, want ErrKeyTooLong", n, cfg.MaxKey, err)
		}
	}
	// The same connection still works.
	roundTrip(t, c, []byte("after-long-key"), 5000, 7, rdmakv.Rendezvous)
}

func testValueTooLarge(t *testing.T, env Env) {
	cfg := serverConfig(env)
	// A small max value keeps the case fast whatever env.MaxValue is.
	cfg.MaxValue = 256 << 10
	_, c := startWithClient(t, env, cfg)
	key := []byte("big")
	roundTrip(t, c, key, int(cfg.MaxValue), 1, rdmakv.Rendezvous)
	for _, n := range []int64{cfg.MaxValue + 1, 2 * cfg.MaxValue} {
		if err := c.Set(opCtx(t), key, pattern(int(n), 2)); !errors.Is(err, rdmakv.ErrValueTooLarge) {
			t.Errorf("Set of %d bytes (max value %d): %v, want ErrValueTooLarge", n, cfg.MaxValue, err)
		}
	}
	// A refused set leaves the old value in place.
	mustGetEqual(t, c, key, pattern(int(cfg.MaxValue), 1))
	roundTrip(t, c, []byte("after-big"), 100, 3, rdmakv.Eager)
}

// testPoolExhausted fills a small pool with rendezvous values until the
// server reports ErrNoSpace, then frees one and sets again.
func testPoolExhausted(t *testing.T, env Env) {
	cfg := serverConfig(env)
	cfg.PoolSize = 1 << 20
	cfg.MaxValue = 256 << 10
	_, c := startWithClient(t, env, cfg)
	const n = 64 << 10
	var keys [][]byte
	var err error
	for i := 0; i < 2*int(cfg.PoolSize/n)+2; i++ {
		key := []byte(fmt.Sprintf("fill-%03d", i))
		if err = c.Set(opCtx(t), key, pattern(n, uint64(i))); err != nil {
			break
		}
		keys = append(keys, key)
	}
	if !errors.Is(err, rdmakv.ErrNoSpace) {
		t.Fatalf("filling a %d-byte pool with %d-byte values: after %d sets got %v, want ErrNoSpace", cfg.PoolSize, n, len(keys), err)
	}
	if len(keys) == 0 {
		t.Fatalf("the first %d-byte set into a %d-byte pool failed: %v", n, cfg.PoolSize, err)
	}
	// Everything stored so far is intact.
	for i, key := range keys {
		mustGetEqual(t, c, key, pattern(n, uint64(i)))
	}
	// A full pool refuses eager values too, with the same error.
	if err := c.Set(opCtx(t), []byte("eager-on-full"), pattern(100, 1)); !errors.Is(err, rdmakv.ErrNoSpace) {
		t.Errorf("eager Set of 100 bytes into a pool filled by %d values of %d bytes: %v, want ErrNoSpace", len(keys), n, err)
	}
	// Freeing one value makes room on the same connection.
	if err := c.Delete(opCtx(t), keys[0]); err != nil {
		t.Fatalf("Delete(%q) on a full pool: %v", keys[0], err)
	}
	extra := []byte("after-free")
	mustSet(t, c, extra, pattern(n, 999))
	mustGetEqual(t, c, extra, pattern(n, 999))
	// Deleting everything gives the whole pool back: as many values fit again.
	mustDeleteAll(t, c, append(keys[1:], extra))
	for i := range keys {
		key := []byte(fmt.Sprintf("refill-%03d", i))
		if err := c.Set(opCtx(t), key, pattern(n, uint64(i))); err != nil {
			t.Fatalf("after deleting everything, refill set %d of %d: %v (space leaked)", i+1, len(keys), err)
		}
	}
}

func mustDeleteAll(t *testing.T, c *rdmakv.Client, keys [][]byte) {
	t.Helper()
	for _, k := range keys {
		if err := c.Delete(opCtx(t), k); err != nil {
			t.Fatalf("Delete(%q): %v", short(k), err)
		}
	}
}
