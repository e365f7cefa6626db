package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
	_ "github.com/kvbench/kvbench/rdmakv/tcp"
)

func TestServeUntilCancelled(t *testing.T) {
	var out, errOut logbuf.Buffer
	cmd := newCommand(&out, &errOut)
	cmd.SetArgs([]string{"--listen", "127.0.0.1:0", "--pool-size", "1MiB", "--max-eager", "4KiB"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "kvserver listening on 127.0.0.1:") {
		if time.Now().After(deadline) {
			t.Fatalf("no listening line (hang guard); stdout %q stderr %q", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "(transport tcp)") {
		t.Errorf("listening line %q does not name the transport", out.String())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("clean stop returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop after cancel (hang guard)")
	}
}

func TestBadFlagsReportEveryProblem(t *testing.T) {
	var out, errOut logbuf.Buffer
	cmd := newCommand(&out, &errOut)
	cmd.SetArgs([]string{"--pool-size", "12parsecs", "--poll", "spin", "--max-key", "0", "--log-level", "loud",
		"--transport", "smoke", "--lease", "0s", "--busy-idle", "-1ms", "--handshake-timeout", "0s", "--max-conns", "0",
		"--max-handshakes", "-1", "--auth-file", "/nonexistent/kv.secret", "--tos", "256", "--receives", "some"})
	err := cmd.Execute()
	if err == nil {
		t.Fatal("bad flags accepted")
	}
	for _, want := range []string{"--pool-size", "parsecs", "--poll", "--max-key", "--log-level", "transport \"smoke\"", "--lease", "--busy-idle",
		"--handshake-timeout 0s", "--max-conns 0", "--max-handshakes -1", "--auth-file: stat /nonexistent/kv.secret", "--tos 256", "--receives \"some\""} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s:\n%v", want, err)
		}
	}
	if out.String() != "" {
		t.Errorf("printed %q despite bad flags", out.String())
	}
}

// A bad flag is said once: its own check, not again by the server's
// validation of the value it leaves.
func TestBadFlagSaidOnce(t *testing.T) {
	for _, flag := range [][]string{{"--max-eager", "-5"}, {"--pool-size", "0"}, {"--max-key", "0"}, {"--lease", "0s"}} {
		cmd := newCommand(io.Discard, io.Discard)
		cmd.SetArgs(flag)
		err := cmd.Execute()
		if err == nil {
			t.Fatalf("%v accepted", flag)
		}
		if got := strings.Count(err.Error(), "\n") + 1; got != 1 || !strings.HasPrefix(err.Error(), flag[0]+" "+flag[1]+": ") {
			t.Errorf("%v: %d errors, want one saying %s %s first:\n%v", flag, got, flag[0], flag[1], err)
		}
	}
}

// A listen that fails names the address once, then the transport's cause.
func TestListenErrorText(t *testing.T) {
	cmd := newCommand(io.Discard, io.Discard)
	cmd.SetArgs([]string{"--listen", "127.0.0.1:99999"})
	want := "rdmakv: listen on 127.0.0.1:99999: tcp: address 99999: invalid port"
	if err := cmd.Execute(); err == nil || err.Error() != want {
		t.Errorf("kvserver --listen 127.0.0.1:99999: %v, want %s", err, want)
	}
}
