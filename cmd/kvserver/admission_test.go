package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
)

// TestFloodsShedNoClient: a server on one CPU, shared with a busy loop,
// takes 20 rounds of a flood of 100 sockets that never speak, past
// --max-handshakes 64, while 20 clients connect, set and get. It sheds
// idle sockets and never a client: a client's HELLO may wait unread in
// its socket while the starved server accepts the flood, and a
// connection whose HELLO has arrived is never the one shed.
func TestFloodsShedNoClient(t *testing.T) {
	spin := exec.Command("taskset", "-c", "0", "sh", "-c", "while :; do :; done")
	if err := spin.Start(); err != nil {
		t.Fatalf("a busy loop on CPU 0: %v", err)
	}
	t.Cleanup(func() { _ = spin.Process.Kill(); _ = spin.Wait() })
	addr, stderr := startPinned(t, "--listen 127.0.0.1:0 --pool-size 8MiB --transport tcp --max-handshakes 64")
	clientLog := &logbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(clientLog, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for round := range 20 {
		flood := make([]net.Conn, 0, 100)
		var mu sync.Mutex
		var wg sync.WaitGroup
		wg.Go(func() {
			for range 100 {
				if c, err := net.Dial("tcp", addr); err == nil {
					mu.Lock()
					flood = append(flood, c)
					mu.Unlock()
				}
			}
		})
		errs := make(chan error, 20)
		for i := range 20 {
			wg.Go(func() { errs <- client(addr, log, fmt.Appendf(nil, "round-%d-client-%d", round, i)) })
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
		for _, c := range flood {
			c.Close()
		}
		if t.Failed() {
			t.Fatalf("server log:\n%s", stderr)
		}
	}
	if !strings.Contains(stderr.String(), "shedding handshake") {
		t.Fatalf("the floods never filled the handshake budget, so nothing was tested; server log:\n%s", stderr)
	}
	t.Logf("%d of 400 clients were shed before their HELLO arrived and dialed again", strings.Count(clientLog.String(), "dialing again"))
}

// startPinned runs kvserver with args on CPU 0 and returns its address.
func startPinned(t *testing.T, args string) (string, *logbuf.Buffer) {
	t.Helper()
	_, out, stderr := runMainVia(t, []string{"taskset", "-c", "0"}, args)
	line, err := out.ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "kvserver listening on ")
	if err != nil || !ok {
		t.Fatalf("first line %q (%v); stderr %s", line, err, stderr)
	}
	return strings.Fields(addr)[0], stderr
}

// client connects, sets key and reads it back.
func client(addr string, log *slog.Logger, key []byte) error {
	ctx := context.Background()
	c, err := rdmakv.Dial(ctx, addr, rdmakv.WithTransport("tcp"), rdmakv.WithLogger(log))
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Set(ctx, key, key); err != nil {
		return fmt.Errorf("set %s: %w", key, err)
	}
	v, err := c.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("get %s: %w", key, err)
	}
	defer v.Release()
	if !bytes.Equal(v.Bytes(), key) {
		return fmt.Errorf("get %s: %q", key, v.Bytes())
	}
	return nil
}
