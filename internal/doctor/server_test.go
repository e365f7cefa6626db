package doctor

import (
	"context"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	_ "github.com/kvbench/kvbench/rdmakv/tcp" // the in-process server's transport
)

func testServer(t *testing.T, secret []byte) string {
	t.Helper()
	s, err := rdmakv.Listen(rdmakv.ServerConfig{Listen: "127.0.0.1:0", Transport: rdmakv.TransportTCP,
		PoolSize: 8 << 20, MaxValue: 1 << 20, AuthSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.Addr()
}

func probe(t *testing.T, addr string, secret []byte) *Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := &Report{}
	checkServer(ctx, r, Options{Server: addr, Transport: rdmakv.TransportTCP, Secret: secret})
	return r
}

// The server probe reports the server's limits, that it needs no secret,
// and one eager and one rendezvous SET and GET, labelled single samples.
func TestServer(t *testing.T) {
	r := probe(t, testServer(t, nil), nil)
	wantCheck(t, r, "limits", OK, "max eager 64KiB", "value 1MiB, pool 8MiB", "over tcp")
	wantCheck(t, r, "auth", OK, "without a secret")
	wantCheck(t, r, "requests", OK, "one sample each, not a measurement", "eager 32B SET", "rendezvous 64KiB SET")
	s := r.Server
	if s.Limits == nil || s.Limits.PoolSize != 8<<20 || s.AuthRequired == nil || *s.AuthRequired || len(s.Samples) != 4 {
		t.Fatalf("server %+v", s)
	}
	for i, want := range []Sample{{Op: "set", Protocol: "eager", Bytes: 32}, {Op: "get", Protocol: "eager", Bytes: 32},
		{Op: "set", Protocol: "rendezvous", Bytes: 64 << 10}, {Op: "get", Protocol: "rendezvous", Bytes: 64 << 10}} {
		got := s.Samples[i]
		if got.Op != want.Op || got.Protocol != want.Protocol || got.Bytes != want.Bytes || got.Nanos <= 0 {
			t.Errorf("sample %d: %+v, want %+v with a time", i, got, want)
		}
	}
}

// A server requiring a secret the client lacks, or has wrong, is an auth
// failure saying which file to give; the right secret passes.
func TestServerAuth(t *testing.T) {
	secret := []byte("0123456789abcdef0123")
	addr := testServer(t, secret)
	r := probe(t, addr, nil)
	wantCheck(t, r, "auth", Fail, "requires a shared secret and none was given", "--auth-file FILE", "kvserver --auth-file")
	if r.Server.AuthRequired == nil || !*r.Server.AuthRequired {
		t.Errorf("auth_required %v, want true", r.Server.AuthRequired)
	}
	r = probe(t, addr, []byte("not the secret, but long"))
	wantCheck(t, r, "auth", Fail, "refused the one given", "same file as kvserver --auth-file")
	r = probe(t, addr, secret)
	wantCheck(t, r, "auth", OK, "accepts the one given")
	wantCheck(t, r, "requests", OK)
}

// An address where nothing listens is a connect failure saying what to
// check.
func TestServerUnreachable(t *testing.T) {
	r := probe(t, "127.0.0.1:1", nil)
	wantCheck(t, r, "connect", Fail, "cannot connect: rdmakv: dial 127.0.0.1:1: tcp: connect: connection refused", "kvserver listens on 127.0.0.1:1 with --transport tcp")
}

// Over tcp a server is reached without RDMA: a machine with no device
// passes, the device checks standing as warnings; over verbs it fails.
func TestServerOverTCPNeedsNoDevice(t *testing.T) {
	env := newFakeEnv(t)
	addr := testServer(t, nil)
	r := Run(context.Background(), env.Env, Options{Server: addr, Transport: rdmakv.TransportTCP, Timeout: time.Minute})
	wantCheck(t, r, "rdma devices", Warn, "libibverbs lists none", "not needed over tcp", "modprobe rdma_rxe")
	if !r.OK {
		t.Errorf("a tcp server on a machine without RDMA: not OK: %+v", r.Checks)
	}
	r = Run(context.Background(), env.Env, Options{Server: addr, Transport: rdmakv.TransportVerbs, Timeout: time.Minute})
	wantCheck(t, r, "rdma devices", Fail, "libibverbs lists none")
	if r.OK {
		t.Error("verbs on a machine without RDMA: OK, want a failure")
	}
}
