package kvtest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// testHandshakeTimeout: a connection that never says HELLO is dropped once
// the handshake timeout passes, with a log line, and clients that do say
// it are served.
func testHandshakeTimeout(t *testing.T, env Env) {
	cfg := serverConfig(env)
	cfg.HandshakeTimeout = 200 * time.Millisecond
	logs := captureLogs(&cfg)
	s := startServer(t, cfg)
	mute := rawConnect(t, env, s.Addr(), cfg.MaxEager)
	c := dial(t, env, s.Addr())
	if err := mute.waitClosed(20 * time.Second); err != nil {
		t.Fatalf("a connection without HELLO: %v", err)
	}
	if !strings.Contains(logs.String(), "no HELLO within 200ms") {
		t.Errorf("the server did not say why it dropped the connection:\n%s", logs.String())
	}
	mustSet(t, c, []byte("k"), []byte("v"))
	mustGetEqual(t, c, []byte("k"), []byte("v"))
}

// testMaxConns: the connection past MaxConns is refused at its HELLO, its Dial
// fails saying so, and the served clients are unaffected; once one of
// them leaves, a new client gets in.
func testMaxConns(t *testing.T, env Env) {
	cfg := serverConfig(env)
	cfg.MaxConns = 2
	logs := captureLogs(&cfg)
	s, a := startWithClient(t, env, cfg)
	b := dial(t, env, s.Addr())
	_, err := dialErr(env, s.Addr())
	if !errors.Is(err, rdmakv.ErrClosed) || !strings.Contains(err.Error(), "serves its most connections (MaxConns)") {
		t.Fatalf("Dial past MaxConns: %v, want ErrClosed saying the server is at MaxConns", err)
	}
	if !strings.Contains(logs.String(), "refusing connection") || !strings.Contains(logs.String(), "2 connections open") {
		t.Errorf("the server did not say why it refused:\n%s", logs.String())
	}
	mustSet(t, a, []byte("k"), []byte("v"))
	mustGetEqual(t, b, []byte("k"), []byte("v"))
	a.Close()
	// The server learns of the close asynchronously: retry until the slot
	// is free (the case's hang guard bounds this).
	for {
		c, err := dialErr(env, s.Addr())
		if err == nil {
			defer c.Close()
			mustGetEqual(t, c, []byte("k"), []byte("v"))
			return
		}
		if !errors.Is(err, rdmakv.ErrClosed) {
			t.Fatalf("Dial after a client left: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
