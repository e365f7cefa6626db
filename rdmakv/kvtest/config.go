package kvtest

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// testBadConfig checks that bad server configs and dial options are refused
// with one error naming every problem, and that dialing nothing fails fast
// instead of hanging.
func testBadConfig(t *testing.T, env Env) {
	bad := rdmakv.ServerConfig{
		Listen:    env.Addr,
		Transport: env.Transport,
		PoolSize:  100,     // not a multiple of 64
		MaxEager:  -1,      // negative
		MaxKey:    1 << 17, // beyond the 16-bit key length
		RecvDepth: 1 << 20, // beyond 65536
	}
	s, err := rdmakv.Listen(bad)
	if err == nil {
		s.Close()
		t.Fatalf("Listen accepted %+v", bad)
	}
	for _, want := range []string{"pool size", "max eager", "max key", "recv depth"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Listen error does not name %q (one error should list every problem): %v", want, err)
		}
	}

	good := startServer(t, serverConfig(env))
	// Binding an address in use fails.
	cfg := serverConfig(env)
	cfg.Listen = good.Addr()
	if s2, err := rdmakv.Listen(cfg); err == nil {
		s2.Close()
		t.Errorf("a second Listen on %s succeeded", good.Addr())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = rdmakv.Dial(ctx, good.Addr(), rdmakv.WithTransport(env.Transport),
		rdmakv.WithDepth(0), rdmakv.WithTimeout(-time.Second), rdmakv.WithEagerThreshold(-1))
	if err == nil {
		t.Errorf("Dial with depth 0, timeout -1s and threshold -1 succeeded")
	} else {
		for _, want := range []string{"depth", "timeout", "threshold"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Dial error does not name %q: %v", want, err)
			}
		}
	}
	if c, err := rdmakv.Dial(ctx, good.Addr(), rdmakv.WithTransport("carrier-pigeon")); err == nil {
		c.Close()
		t.Errorf("Dial over transport \"carrier-pigeon\" succeeded")
	}

	// Nothing listening: a port that was just free.
	host, _, _ := net.SplitHostPort(env.Addr)
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatalf("reserve a port: %v", err)
	}
	dead := ln.Addr().String()
	ln.Close()
	if c, err := dialErr(env, dead, rdmakv.WithTimeout(time.Second)); err == nil {
		c.Close()
		t.Errorf("Dial to %s where nothing listens succeeded", dead)
	} else if errors.Is(err, rdmakv.ErrThreshold) {
		t.Errorf("Dial to %s where nothing listens: misleading error %v", dead, err)
	}
}
