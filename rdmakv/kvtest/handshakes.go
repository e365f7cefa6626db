package kvtest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// handshakeConfig is a server with room for two clients and three
// connections waiting for HELLO, which would never time out during a case:
// only shedding can close an idle connection.
func handshakeConfig(env Env) rdmakv.ServerConfig {
	cfg := serverConfig(env)
	cfg.MaxConns, cfg.MaxHandshakes = 2, 3
	cfg.HandshakeTimeout = time.Hour
	return cfg
}

// openIdle opens n connections that never say HELLO, one after another,
// so the server accepts them in this order.
func openIdle(t *testing.T, env Env, addr string, maxEager, n int) []*rawClient {
	t.Helper()
	idle := make([]*rawClient, n)
	for i := range idle {
		idle[i] = rawConnect(t, env, addr, maxEager)
	}
	return idle
}

// testIdleHandshakesShed: more connections that never say HELLO than
// MaxConns and MaxHandshakes together cannot lock clients out. The server
// sheds the oldest of them as each new one arrives, with a log line;
// clients then get in up to MaxConns and are served, and the one past
// MaxConns that does say HELLO is still refused.
func testIdleHandshakesShed(t *testing.T, env Env) {
	cfg := handshakeConfig(env)
	logs := captureLogs(&cfg)
	s := startServer(t, cfg)
	idle := openIdle(t, env, s.Addr(), cfg.MaxEager, 2*(cfg.MaxConns+cfg.MaxHandshakes))
	shed := len(idle) - cfg.MaxHandshakes
	for i, r := range idle[:shed] {
		if err := r.waitClosed(10 * time.Second); err != nil {
			t.Fatalf("idle connection %d of %d, with %d newer: %v", i+1, len(idle), len(idle)-i-1, err)
		}
	}
	for i, r := range idle[shed:] {
		if r.isClosed() {
			t.Fatalf("idle connection %d of %d was closed, but only the oldest %d should be", shed+i+1, len(idle), shed)
		}
	}
	if !strings.Contains(logs.String(), "shedding handshake") || !strings.Contains(logs.String(), "3 connections waiting for HELLO") {
		t.Errorf("the server did not say why it closed the idle connections:\n%s", logs.String())
	}
	clients := dialN(t, env, s.Addr(), cfg.MaxConns)
	for i, c := range clients {
		key := fmt.Appendf(nil, "client-%d", i)
		mustSet(t, c, key, []byte("v"))
		mustGetEqual(t, c, key, []byte("v"))
	}
	_, err := dialErr(env, s.Addr())
	if !errors.Is(err, rdmakv.ErrClosed) || !strings.Contains(err.Error(), "serves its most connections (MaxConns)") {
		t.Fatalf("Dial past MaxConns among idle connections: %v, want ErrClosed saying the server is at MaxConns", err)
	}
	if !strings.Contains(logs.String(), "refusing connection") || !strings.Contains(logs.String(), "2 connections open") {
		t.Errorf("the server did not say why it refused the client past MaxConns:\n%s", logs.String())
	}
	mustGetEqual(t, clients[0], []byte("client-1"), []byte("v"))
}

// testIdleHandshakesDoNotCount: connections waiting for HELLO take no room
// from clients. With MaxHandshakes idle connections held open, MaxConns
// clients still get in, and none of the idle ones is shed for them.
func testIdleHandshakesDoNotCount(t *testing.T, env Env) {
	cfg := handshakeConfig(env)
	logs := captureLogs(&cfg)
	s := startServer(t, cfg)
	idle := openIdle(t, env, s.Addr(), cfg.MaxEager, cfg.MaxHandshakes-1)
	for _, c := range dialN(t, env, s.Addr(), cfg.MaxConns) {
		mustSet(t, c, []byte("k"), []byte("v"))
	}
	for i, r := range idle {
		if r.isClosed() {
			t.Fatalf("idle connection %d of %d was closed with the handshake budget not full:\n%s", i+1, len(idle), logs.String())
		}
	}
}

// testUnansweredChallengeShed: with a secret, a connection counts as a
// handshake until it answers the challenge. One that said HELLO and never
// answered is shed like a silent one, and a client with the secret gets
// in.
func testUnansweredChallengeShed(t *testing.T, env Env) {
	secret := suiteSecret
	cfg := handshakeConfig(env)
	s, logs := startWithSecret(t, cfg)
	stalled := rawConnect(t, env, s.Addr(), cfg.MaxEager)
	rawChallenge(t, stalled, rawHelloBody(cfg.MaxEager, uint32(cfg.MaxEager)))
	idle := openIdle(t, env, s.Addr(), cfg.MaxEager, cfg.MaxHandshakes)
	// Until the server has returned from the HELLO it challenged, the
	// connection counts as one whose message is being heard, and a
	// newcomer then sheds the next silent one; the one after sheds it.
	seen := map[*rawClient]bool{}
	for extra := 0; ; extra++ {
		if shed := waitShed(t, append([]*rawClient{stalled}, idle...), seen); shed == stalled {
			break
		}
		if extra == 3 {
			t.Fatalf("a connection that never answered its challenge outlived %d newer ones", len(idle))
		}
		idle = append(idle, rawConnect(t, env, s.Addr(), cfg.MaxEager))
	}
	if !strings.Contains(logs.String(), "shedding handshake") {
		t.Errorf("the server did not say why it closed the connection:\n%s", logs.String())
	}
	c := dial(t, env, s.Addr(), rdmakv.WithAuth(secret))
	mustSet(t, c, []byte("k"), []byte("v"))
	mustGetEqual(t, c, []byte("k"), []byte("v"))
}

// waitShed waits until the server has closed one of conns not in seen,
// adds it and returns it (the oldest, if several); the deadline is a hang
// guard.
func waitShed(t *testing.T, conns []*rawClient, seen map[*rawClient]bool) *rawClient {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		for _, r := range conns {
			if r.isClosed() && !seen[r] {
				seen[r] = true
				return r
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("none of %d connections waiting for HELLO, past MaxHandshakes, was shed", len(conns))
		}
	}
}

// isClosed reports whether the server has closed the connection by now.
func (r *rawClient) isClosed() bool {
	select {
	case <-r.closed:
		return true
	default:
		return false
	}
}
