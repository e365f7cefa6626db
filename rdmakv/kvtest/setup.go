package kvtest

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
)

// serverConfig is the baseline server: a pool small enough to start fast
// (allocator setup is linear in the pool size, slow under -race) and large
// enough for every case but the biggest values, which use bigServerConfig.
func serverConfig(env Env) rdmakv.ServerConfig {
	return rdmakv.ServerConfig{
		Listen:    env.Addr,
		Transport: env.Transport,
		PoolSize:  16 << 20,
		MaxEager:  16 << 10,
		MaxKey:    1024,
		MaxValue:  min(env.MaxValue, 4<<20),
		Lease:     2 * time.Second,
		NetConn:   env.NetConn,
	}
}

// bigServerConfig takes values up to env.MaxValue.
func bigServerConfig(env Env) rdmakv.ServerConfig {
	cfg := serverConfig(env)
	cfg.MaxValue = env.MaxValue
	cfg.PoolSize = max(cfg.PoolSize, (2*env.MaxValue+(1<<20)+63)&^63)
	return cfg
}

// startServer starts a server with cfg and closes it when the test ends.
func startServer(t *testing.T, cfg rdmakv.ServerConfig) *rdmakv.Server {
	t.Helper()
	s, err := rdmakv.Listen(cfg)
	if err != nil {
		t.Fatalf("rdmakv.Listen(%s on %s, pool %d, max eager %d, max value %d): %v",
			cfg.Transport, cfg.Listen, cfg.PoolSize, cfg.MaxEager, cfg.MaxValue, err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("server Close: %v", err)
		}
	})
	return s
}

// dial connects a client to s and closes it when the test ends.
func dial(t *testing.T, env Env, addr string, opts ...rdmakv.Option) *rdmakv.Client {
	t.Helper()
	c, err := dialErr(env, addr, opts...)
	if err != nil {
		t.Fatalf("Dial %s over %s: %v", addr, env.Transport, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func dialErr(env Env, addr string, opts ...rdmakv.Option) (*rdmakv.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	all := []rdmakv.Option{rdmakv.WithTransport(env.Transport), rdmakv.WithTimeout(10 * time.Second), rdmakv.WithNetConn(env.NetConn)}
	if env.Depth > 0 {
		all = append(all, rdmakv.WithDepth(env.Depth))
	}
	all = append(all, opts...)
	return rdmakv.Dial(ctx, addr, all...)
}

// startWithClient starts a server with cfg and dials one client to it,
// both closed when the test ends: the opening of most cases.
func startWithClient(t *testing.T, env Env, cfg rdmakv.ServerConfig, opts ...rdmakv.Option) (*rdmakv.Server, *rdmakv.Client) {
	t.Helper()
	s := startServer(t, cfg)
	return s, dial(t, env, s.Addr(), opts...)
}

// dialN connects n clients to addr, each closed when the test ends.
func dialN(t *testing.T, env Env, addr string, n int, opts ...rdmakv.Option) []*rdmakv.Client {
	t.Helper()
	clients := make([]*rdmakv.Client, n)
	for i := range clients {
		clients[i] = dial(t, env, addr, opts...)
	}
	return clients
}

// captureLogs points cfg's logger at the returned buffer, for cases that
// check the server says why it dropped or refused a connection.
func captureLogs(cfg *rdmakv.ServerConfig) *logbuf.Buffer {
	logs := &logbuf.Buffer{}
	cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	return logs
}

// suiteSecret is the shared secret of the suite's authenticating servers.
var suiteSecret = []byte("kvtest shared secret of 32 bytes")

// startWithSecret starts a server on cfg that requires suiteSecret, its
// log captured.
func startWithSecret(t *testing.T, cfg rdmakv.ServerConfig) (*rdmakv.Server, *logbuf.Buffer) {
	cfg.AuthSecret = suiteSecret
	logs := captureLogs(&cfg)
	return startServer(t, cfg), logs
}
