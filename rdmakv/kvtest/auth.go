package kvtest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

// testAuth: a server with a shared secret serves only clients that prove
// they know it. A client without the secret, one with a wrong secret and
// one replaying another connection's answer are all refused, and the
// refused connection is granted nothing; the right secret works.
func testAuth(t *testing.T, env Env) {
	secret := suiteSecret
	cfg := serverConfig(env)
	s, logs := startWithSecret(t, cfg)

	_, err := dialErr(env, s.Addr())
	if !errors.Is(err, rdmakv.ErrAuth) || !strings.Contains(err.Error(), "requires a shared secret") {
		t.Fatalf("Dial without a secret: %v, want ErrAuth saying the server requires one", err)
	}
	_, err = dialErr(env, s.Addr(), rdmakv.WithAuth([]byte("a wrong secret, but long enough")))
	if !errors.Is(err, rdmakv.ErrAuth) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("Dial with a wrong secret: %v, want ErrAuth saying the server refused it", err)
	}
	if !strings.Contains(logs.String(), "authentication failed") {
		t.Errorf("the server did not log the failed authentication:\n%s", logs.String())
	}

	// An eavesdropper sees one connection's challenge and correct answer,
	// and replays the answer on a connection of its own.
	body := rawHelloBody(cfg.MaxEager, uint32(cfg.MaxEager))
	seen := rawConnect(t, env, s.Addr(), cfg.MaxEager)
	proof := wire.Proof(secret, rawChallenge(t, seen, body), body)
	if f := seen.call(wire.Header{Type: wire.Hello}, nil, append(body, proof[:]...)); f.Status != wire.OK {
		t.Fatalf("the right answer to a challenge got %s", f.Status)
	}
	replay := rawConnect(t, env, s.Addr(), cfg.MaxEager)
	rawChallenge(t, replay, body)
	if f := replay.call(wire.Header{Type: wire.Hello}, nil, append(body, proof[:]...)); f.Status != wire.AuthFailed {
		t.Fatalf("a replayed answer got %s, want %s", f.Status, wire.AuthFailed)
	}
	// The refused connection asks for a set grant anyway: it is dropped
	// without one, and the key never appears.
	key := []byte("auth-replayed")
	replay.send(wire.Header{Type: wire.SetRdvReq, Length: 4096}, key, nil)
	if got := rawGrantsUntilClosed(replay, 20*time.Second); got != "" {
		t.Fatalf("a connection refused at authentication was answered %s", got)
	}

	c := dial(t, env, s.Addr(), rdmakv.WithAuth(secret))
	mustNotFound(t, c, key)
	roundTrip(t, c, []byte("auth-ok"), 20000, 1, 0)
}

// rawChallenge sends a HELLO without an answer and returns the server's
// challenge.
func rawChallenge(t *testing.T, r *rawClient, body []byte) []byte {
	t.Helper()
	f := r.call(wire.Header{Type: wire.Hello}, nil, body)
	if f.Type != wire.HelloReply || f.Status != wire.AuthRequired || len(f.Value) != wire.ChallengeSize {
		t.Fatalf("HELLO to a server with a secret got %s %s with %d bytes, want %s with a %d-byte challenge",
			f.Type, f.Status, len(f.Value), wire.AuthRequired, wire.ChallengeSize)
	}
	return append([]byte(nil), f.Value...)
}

// rawGrantsUntilClosed waits until the server drops r and reports any
// successful reply that arrived first ("" if none).
func rawGrantsUntilClosed(r *rawClient, d time.Duration) string {
	deadline := time.After(d)
	for {
		select {
		case <-r.closed:
			return ""
		case m := <-r.in:
			if f, err := wire.Decode(m.data); err == nil && f.Status == wire.OK {
				return f.Type.String()
			}
		case <-deadline:
			return "nothing, but the connection stayed open for " + d.String()
		}
	}
}
