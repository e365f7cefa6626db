package kvtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// roundTrip sets key to a patterned value of n bytes, reads it back and
// checks bytes and, when want is non-zero, the protocol on both sides.
func roundTrip(t *testing.T, c *rdmakv.Client, key []byte, n int, seed uint64, want rdmakv.Protocol) {
	t.Helper()
	val := pattern(n, seed)
	if want != 0 {
		if got := c.ProtocolFor(len(key), n); got != want {
			t.Errorf("ProtocolFor(key %d, value %d) = %v, want %v", len(key), n, got, want)
		}
	}
	mustSet(t, c, key, val)
	got := mustGetEqual(t, c, key, val)
	if want != 0 && got != want {
		t.Errorf("Get(key %d bytes) of a %d-byte value answered %v, want %v", len(key), n, got, want)
	}
}

// testLimits checks the handshake reports the server's configuration.
func testLimits(t *testing.T, env Env) {
	cfg := serverConfig(env)
	s, c := startWithClient(t, env, cfg)
	l := c.Limits()
	if l.MaxEager != cfg.MaxEager || l.MaxKey != cfg.MaxKey || l.MaxValue != cfg.MaxValue || l.PoolSize != cfg.PoolSize {
		t.Errorf("Limits() = %+v, want MaxEager %d MaxKey %d MaxValue %d PoolSize %d (the server's config)",
			l, cfg.MaxEager, cfg.MaxKey, cfg.MaxValue, cfg.PoolSize)
	}
	if info := c.Info(); info.Transport != env.Transport {
		t.Errorf("Client.Info().Transport = %q, want %q", info.Transport, env.Transport)
	}
	if info := s.Info(); info.Transport != env.Transport {
		t.Errorf("Server.Info().Transport = %q, want %q", info.Transport, env.Transport)
	}
}

// testRoundTripThreshold straddles several thresholds: key+value at T-1 must
// go eager, at T and T+1 rendezvous, in both directions.
func testRoundTripThreshold(t *testing.T, env Env) {
	s := startServer(t, serverConfig(env))
	for _, T := range []int{64, 1000, 4096, 9000} {
		c := dial(t, env, s.Addr(), rdmakv.WithEagerThreshold(T))
		for _, keyLen := range []int{1, 16, 60} {
			for d := -1; d <= 1; d++ {
				total := T + d
				key := []byte(fmt.Sprintf("thr-%d-k%d-%+d-", T, keyLen, d))
				key = append(key, pattern(keyLen, uint64(total))...)[:keyLen]
				want := rdmakv.Rendezvous
				if d < 0 {
					want = rdmakv.Eager
				}
				t.Run(fmt.Sprintf("T%d/key%d/total%+d", T, keyLen, d), func(t *testing.T) {
					roundTrip(t, c, key, total-keyLen, uint64(T*31+keyLen*7+d), want)
				})
			}
		}
		c.Close()
	}
}

// testKeysAboveThreshold sends keys longer than the client's threshold,
// up to the longest the server takes: every such request goes
// rendezvous, and carries a key larger than any reply the client
// receives.
func testKeysAboveThreshold(t *testing.T, env Env) {
	cfg := serverConfig(env)
	s := startServer(t, cfg)
	for _, T := range []int{0, 64} {
		c := dial(t, env, s.Addr(), rdmakv.WithEagerThreshold(T))
		for _, keyLen := range []int{100, cfg.MaxKey} {
			key := append([]byte(fmt.Sprintf("long-%d-", T)), pattern(keyLen, uint64(keyLen))...)[:keyLen]
			t.Run(fmt.Sprintf("T%d/key%d", T, keyLen), func(t *testing.T) {
				roundTrip(t, c, key, 2, uint64(T+keyLen), rdmakv.Rendezvous)
				if err := c.Delete(opCtx(t), key); err != nil {
					t.Errorf("Delete(%d-byte key) at threshold %d: %v", keyLen, T, err)
				}
			})
		}
		c.Close()
	}
}

// valueSizes are the sizes every transport must move, capped at max.
func valueSizes(max int64) []int64 {
	var out []int64
	for _, n := range []int64{0, 1, 63, 64, 4095, 4096, 4097, 64 << 10, 1 << 20, max} {
		if n <= max && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func testRoundTripSizes(t *testing.T, env Env) {
	_, c := startWithClient(t, env, bigServerConfig(env))
	T := 4096 // the documented default threshold
	for i, n := range valueSizes(env.MaxValue) {
		key := []byte(fmt.Sprintf("size-%d", n))
		want := rdmakv.Eager
		if len(key)+int(n) >= T {
			want = rdmakv.Rendezvous
		}
		t.Run(sizeName(n), func(t *testing.T) {
			roundTrip(t, c, key, int(n), uint64(i+1), want)
		})
	}
}

func testThresholdZero(t *testing.T, env Env) {
	_, c := startWithClient(t, env, serverConfig(env), rdmakv.WithEagerThreshold(0))
	for i, n := range []int{0, 1, 100, 4095, 4097, 64 << 10} {
		t.Run(sizeName(int64(n)), func(t *testing.T) {
			roundTrip(t, c, []byte(fmt.Sprintf("zero-%d", n)), n, uint64(100+i), rdmakv.Rendezvous)
		})
	}
	// The empty key with an empty value is the smallest request; with
	// threshold 0 it still goes rendezvous.
	if got := c.ProtocolFor(0, 0); got != rdmakv.Rendezvous {
		t.Errorf("threshold 0: ProtocolFor(0, 0) = %v, want rendezvous", got)
	}
}

func testThresholdMaxEager(t *testing.T, env Env) {
	cfg := serverConfig(env)
	T := cfg.MaxEager
	_, c := startWithClient(t, env, cfg, rdmakv.WithEagerThreshold(T))
	key := []byte("maxeager")
	for i, total := range []int{len(key), len(key) + 1, 4096, T / 2, T - 2, T - 1} {
		t.Run(fmt.Sprintf("total%d", total), func(t *testing.T) {
			roundTrip(t, c, key, total-len(key), uint64(200+i), rdmakv.Eager)
		})
	}
	for i, total := range []int{T, T + 1, 4 * T} {
		t.Run(fmt.Sprintf("total%d", total), func(t *testing.T) {
			roundTrip(t, c, key, total-len(key), uint64(300+i), rdmakv.Rendezvous)
		})
	}
}

func testThresholdAboveMaxEager(t *testing.T, env Env) {
	cfg := serverConfig(env)
	s := startServer(t, cfg)
	for _, T := range []int{cfg.MaxEager + 1, 2 * cfg.MaxEager} {
		c, err := dialErr(env, s.Addr(), rdmakv.WithEagerThreshold(T))
		if err == nil {
			c.Close()
			t.Errorf("Dial with threshold %d above server max eager %d succeeded, want ErrThreshold", T, cfg.MaxEager)
			continue
		}
		if !errors.Is(err, rdmakv.ErrThreshold) {
			t.Errorf("Dial with threshold %d above server max eager %d: error %v, want ErrThreshold", T, cfg.MaxEager, err)
		}
		if want := fmt.Sprintf("threshold %d, server accepts at most %d", T, cfg.MaxEager); !strings.Contains(err.Error(), want) {
			t.Errorf("Dial with threshold %d: error %q does not say %q", T, err, want)
		}
	}
	// The refused dials must not have hurt the server.
	c := dial(t, env, s.Addr(), rdmakv.WithEagerThreshold(cfg.MaxEager))
	roundTrip(t, c, []byte("after-refused"), 100, 7, rdmakv.Eager)
}
