package cli

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/transport"
	"github.com/kvbench/kvbench/rdmakv/verbs"
)

// executeIO runs kvbench with the given standard input and returns what it
// wrote to standard output and standard error.
func executeIO(ctx context.Context, stdin []byte, args ...string) (stdout, stderr []byte, err error) {
	var o, e bytes.Buffer
	root := NewRoot()
	root.SetArgs(args)
	root.SetIn(bytes.NewReader(stdin))
	root.SetOut(&o)
	root.SetErr(&e)
	err = root.ExecuteContext(ctx)
	return o.Bytes(), e.Bytes(), err
}

func keyServer(t *testing.T, secret []byte) string {
	t.Helper()
	s, err := rdmakv.Listen(rdmakv.ServerConfig{Listen: "127.0.0.1:0", Transport: "tcp", PoolSize: 32 << 20,
		MaxValue: 4 << 20, AuthSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.Addr()
}

// set, get and del round-trip values byte for byte, eager and rendezvous,
// from arguments and from standard input, to standard output and to a
// file; --stat names the protocol the threshold chose.
func TestKeyCommands(t *testing.T) {
	ctx := hangGuard(t)
	srv := keyServer(t, nil)
	at := []string{"--server", srv}
	binary := bytes.Repeat([]byte{0, 1, 2, 255, '\n'}, 20000) // 100 000 bytes with NULs
	if _, _, err := executeIO(ctx, binary, append([]string{"set", "blob", "-", "--stat"}, at...)...); err != nil {
		t.Fatal(err)
	}
	out, stat, err := executeIO(ctx, nil, append([]string{"get", "blob", "--stat"}, at...)...)
	if err != nil || !bytes.Equal(out, binary) {
		t.Fatalf("get blob: %v, %d bytes back, want the %d set", err, len(out), len(binary))
	}
	if !strings.Contains(string(stat), "size=100000 protocol=rendezvous latency=") {
		t.Errorf("get --stat printed %q", stat)
	}
	file := filepath.Join(t.TempDir(), "v")
	if _, _, err := executeIO(ctx, nil, append([]string{"set", "small", "hello"}, at...)...); err != nil {
		t.Fatal(err)
	}
	out, stat, err = executeIO(ctx, nil, append([]string{"get", "small", "-o", file, "--stat"}, at...)...)
	got, _ := os.ReadFile(file)
	if err != nil || len(out) != 0 || string(got) != "hello" || !strings.Contains(string(stat), "protocol=eager") {
		t.Fatalf("get -o: %v, stdout %q, file %q, stat %q", err, out, got, stat)
	}
	// A threshold of 1 sends even a small value rendezvous.
	_, stat, err = executeIO(ctx, nil, append([]string{"set", "small", "hi", "--threshold", "1", "--stat"}, at...)...)
	if err != nil || !strings.Contains(string(stat), "size=2 protocol=rendezvous") {
		t.Fatalf("set --threshold 1: %v, stat %q", err, stat)
	}
	if _, _, err := executeIO(ctx, nil, append([]string{"del", "small"}, at...)...); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"get", "del"} {
		_, _, err := executeIO(ctx, nil, append([]string{cmd, "small"}, at...)...)
		if err == nil || ExitCode(err) != 1 || !strings.Contains(err.Error(), `"small": no such key`) {
			t.Errorf("%s of a deleted key: %v, want exit 1 and no such key", cmd, err)
		}
	}
}

// A secret file lets the commands through a guarded server; without it,
// against a closed port, or with bad flags they fail with a message that
// says why.
func TestKeyCommandsFail(t *testing.T) {
	ctx := hangGuard(t)
	secret := []byte("key commands secret, 32 bytes!!!")
	srv := keyServer(t, secret)
	file := filepath.Join(t.TempDir(), "kv.secret")
	if err := os.WriteFile(file, secret, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := executeIO(ctx, nil, "set", "k", "v", "--server", srv, "--auth-file", file); err != nil {
		t.Fatalf("set with the secret: %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "k", "--server", srv}, "authentication"},
		{[]string{"get", "k", "--server", "127.0.0.1:1", "--timeout", "2s"}, "dial 127.0.0.1:1"},
		{[]string{"get", "k", "--server", srv, "--threshold", "lots"}, "--threshold"},
		{[]string{"get", "k", "--server", srv, "--transport", "smoke"}, "smoke"},
		{[]string{"get", "k", "--server", srv, "--timeout", "0s"}, "--timeout"},
		{[]string{"get", "k", "--server", srv, "--auth-file", "/nonexistent"}, "--auth-file"},
		{[]string{"set", "k"}, "accepts 2 arg"},
	} {
		_, _, err := executeIO(ctx, nil, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("kvbench %v: %v, want an error mentioning %q", c.args, err, c.want)
		}
	}
}

// The common failures of a connect read as one line that names each thing
// once: the address, the transport, and what went wrong with the way out.
func TestConnectErrorTexts(t *testing.T) {
	ctx := hangGuard(t)
	secret := []byte("key commands secret, 32 bytes!!!")
	guarded := keyServer(t, secret)
	small, err := rdmakv.Listen(rdmakv.ServerConfig{Listen: "127.0.0.1:0", Transport: "tcp", PoolSize: 32 << 20, MaxEager: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer small.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--server", "127.0.0.1:1"}, "rdmakv: dial 127.0.0.1:1: tcp: connect: connection refused"},
		{[]string{"--server", silent.Addr().String(), "--timeout", "300ms"},
			"rdmakv: dial " + silent.Addr().String() + ": rdmakv: request timed out: no HELLO reply"},
		{[]string{"--server", guarded}, "rdmakv: dial " + guarded + ": rdmakv: authentication failed: the server requires a shared secret and this client has none (WithAuth, --auth-file)"},
		{[]string{"--server", small.Addr(), "--threshold", "4KiB"},
			"rdmakv: dial " + small.Addr() + ": rdmakv: eager threshold above the server's maximum: threshold 4096, server accepts at most 1024"},
	}
	if _, err := verbs.Devices(); errors.Is(err, transport.ErrNoDevice) {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"--server", "127.0.0.1:1", "--transport", "verbs"},
			"rdmakv: dial 127.0.0.1:1: verbs: transport: no RDMA device: for Soft-RoCE, load the driver"})
	}
	for _, c := range cases {
		_, _, err := executeIO(ctx, nil, append([]string{"get", "k"}, c.args...)...)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("kvbench get k %v:\n got %v\nwant %s…", c.args, err, c.want)
		}
	}
}
