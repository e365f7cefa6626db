package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
)

// Without KVBENCH_TRANSPORT the library dials tcp outright, as kvbench
// does, instead of settling auto: auto would take verbs wherever a device
// is usable and then fail against the tcp server kvserver runs by default.
func TestEnvDefaultTransport(t *testing.T) {
	t.Setenv("KVBENCH_TRANSPORT", "")
	opts, _, err := envOptions()
	if err != nil {
		t.Fatal(err)
	}
	logs := &logbuf.Buffer{}
	opts = append(opts, rdmakv.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	c, err := rdmakv.Dial(context.Background(), serve(t, nil), opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.Info().Transport; got != rdmakv.TransportTCP {
		t.Errorf("transport %q, want tcp", got)
	}
	if strings.Contains(logs.String(), "transport auto") {
		t.Errorf("the default went through auto:\n%s", logs.String())
	}
}

// An unknown KVBENCH_TRANSPORT is refused at kv_open, naming the variable
// and what it may be.
func TestEnvUnknownTransport(t *testing.T) {
	t.Setenv("KVBENCH_TRANSPORT", "carrier-pigeon")
	_, _, err := envOptions()
	if err == nil || !strings.Contains(err.Error(), "KVBENCH_TRANSPORT") || !strings.Contains(err.Error(), "want tcp, verbs or auto") {
		t.Fatalf("err %v: want KVBENCH_TRANSPORT refused with the names it takes", err)
	}
}

// writeProfile writes a profile into dir whose gets go eager below get
// bytes and sets below set, and returns its path.
func writeProfile(t *testing.T, dir, name string, get, set int) string {
	t.Helper()
	path := filepath.Join(dir, name)
	data := fmt.Sprintf(`{"kvbench_profile": 1, "default_threshold": 4096, "rules": [
		{"op": "get", "threshold": %d}, {"op": "set", "in_flight": [1, 64], "threshold": 100},
		{"op": "set", "in_flight": [65, 0], "threshold": %d}]}`, get, set)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// KVBENCH_PROFILE applies a profile at KVBENCH_CONNECTIONS connections
// of the client's depth (KVBENCH_DEPTH, 64 by default): two connections
// of 64 are in the second band, two of 8 in the first, nine of 8 in the
// second.
func TestEnvProfile(t *testing.T) {
	t.Setenv("KVBENCH_TRANSPORT", "tcp")
	t.Setenv("KVBENCH_PROFILE", writeProfile(t, t.TempDir(), "profile.json", 64, 8192))
	for _, c := range []struct {
		connections string
		set         int
		depth       string
	}{{"", 100, ""}, {"2", 8192, ""}, {"2", 100, "8"}, {"9", 8192, "8"}} {
		t.Setenv("KVBENCH_CONNECTIONS", c.connections)
		t.Setenv("KVBENCH_DEPTH", c.depth)
		opts, _, err := envOptions()
		if err != nil {
			t.Fatal(err)
		}
		cl, err := rdmakv.Dial(context.Background(), serve(t, nil), opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		if got, want := cl.ProtocolFor(1, 1000), rdmakv.ProtocolAt(c.set, 1, 1000); got != want {
			t.Errorf("KVBENCH_CONNECTIONS=%q KVBENCH_DEPTH=%q: a set of 1000 bytes goes %v, want %v", c.connections, c.depth, got, want)
		}
	}
}

// A profile the library cannot apply fails kv_open with the message.
func TestEnvProfileRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"KVBENCH_PROFILE": filepath.Join(dir, "absent.json")}, "KVBENCH_PROFILE: open "},
		{map[string]string{"KVBENCH_PROFILE": writeProfile(t, dir, "bad.json", -1, 64)}, "bad.json: rule 1: threshold -1: want 0 to"},
		{map[string]string{"KVBENCH_PROFILE": writeProfile(t, dir, "p.json", 1, 1), "KVBENCH_EAGER_THRESHOLD": "64"},
			"KVBENCH_PROFILE and KVBENCH_EAGER_THRESHOLD: give one"},
		{map[string]string{"KVBENCH_PROFILE": writeProfile(t, dir, "p.json", 1, 1), "KVBENCH_CONNECTIONS": "0"},
			`KVBENCH_CONNECTIONS="0": want`},
		{map[string]string{"KVBENCH_DEPTH": "0"}, `KVBENCH_DEPTH="0": want`},
	} {
		for _, v := range []string{"KVBENCH_PROFILE", "KVBENCH_EAGER_THRESHOLD", "KVBENCH_CONNECTIONS", "KVBENCH_DEPTH"} {
			t.Setenv(v, c.env[v])
		}
		if _, _, err := envOptions(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.env, err, c.want)
		}
	}
}
