package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
	_ "github.com/kvbench/kvbench/rdmakv/tcp"
)

// The C API is tested from C: the library is built as users build it, and
// examples/c/kvcheck.c, compiled with plain cc against include/kv.h, runs
// against a kvserver process over TCP, and against servers of this
// process for the refusals. (The verbs run is in the Soft-RoCE guest's
// test, guest-test.sh.)
func TestCAPI(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "libkvclient.so")
	run(t, "", nil, "go", "build", "-buildmode=c-shared", "-o", lib, ".")
	kvcheck := compile(t, dir, "kvcheck", "kvcheck.c", nil)
	hello := compile(t, dir, "hello", "hello.c", nil)

	plain := kvserver(t, dir)
	secret := []byte("a secret of more than sixteen bytes")
	guarded := serve(t, secret)
	secretFile := filepath.Join(dir, "kv.secret")
	if err := os.WriteFile(secretFile, secret, 0o600); err != nil {
		t.Fatal(err)
	}
	tcp := []string{"KVBENCH_TRANSPORT=tcp"}
	profile := writeProfile(t, dir, "profile.json", 64, 8192)
	tooLarge := writeProfile(t, dir, "large.json", 1000000, 64)
	bad := writeProfile(t, dir, "bad.json", -1, 64)
	cases := []struct {
		name string
		env  []string
		args []string
	}{
		{"all checks", tcp, []string{plain}},
		{"all checks, rendezvous from 64 bytes", append(tcp, "KVBENCH_EAGER_THRESHOLD=64"), []string{plain}},
		{"nothing listening", append(tcp, "KVBENCH_TIMEOUT=2s"), []string{"127.0.0.1:1", "-9"}},
		{"threshold above the server's max eager", append(tcp, "KVBENCH_EAGER_THRESHOLD=1000000"), []string{plain, "-11"}},
		{"unknown transport", []string{"KVBENCH_TRANSPORT=carrier-pigeon"}, []string{plain, "-1"}},
		{"bad threshold", append(tcp, "KVBENCH_EAGER_THRESHOLD=lots"), []string{plain, "-1"}},
		{"type of service", append(tcp, "KVBENCH_TOS=0x68"), []string{plain}},
		{"bad type of service", append(tcp, "KVBENCH_TOS=256"), []string{plain, "-1"}},
		{"profile", append(tcp, "KVBENCH_PROFILE="+profile, "KVBENCH_CONNECTIONS=4"), []string{plain}},
		{"profile above the server's max eager", append(tcp, "KVBENCH_PROFILE="+tooLarge), []string{plain, "-11"}},
		{"bad profile", append(tcp, "KVBENCH_PROFILE="+bad), []string{plain, "-1"}},
		{"profile and threshold", append(tcp, "KVBENCH_PROFILE="+profile, "KVBENCH_EAGER_THRESHOLD=64"), []string{plain, "-1"}},
		{"secret", append(tcp, "KVBENCH_AUTH_FILE="+secretFile), []string{guarded}},
		{"no secret", tcp, []string{guarded, "-10"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := run(t, "", c.env, kvcheck, c.args...)
			if !strings.Contains(out, "kvcheck: PASS") {
				t.Fatalf("kvcheck %v printed no PASS:\n%s", c.args, out)
			}
		})
	}
	if out := run(t, "", tcp, hello, plain); out != "hello\n" {
		t.Errorf("the README's example printed %q, want \"hello\\n\"", out)
	}
}

// The README's C example is examples/c/hello.c, which TestCAPI runs.
func TestREADMEExampleIsHello(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	hello, err := os.ReadFile("../../examples/c/hello.c")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```c\n"+string(hello)+"```\n") {
		t.Errorf("the README's C example is not examples/c/hello.c as it stands")
	}
}

// TestCAPIAddressSanitizer runs kvcheck built with AddressSanitizer and
// LeakSanitizer: no invalid access and no leak in the C part, the values
// kv_get hands out included.
func TestCAPIAddressSanitizer(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skipf("AddressSanitizer with a Go shared library is checked on amd64; this is %s", runtime.GOARCH)
	}
	dir := t.TempDir()
	run(t, "", nil, "go", "build", "-buildmode=c-shared", "-o", filepath.Join(dir, "libkvclient.so"), ".")
	kvcheck := compile(t, dir, "kvcheck-asan", "kvcheck.c", []string{"-fsanitize=address", "-fno-omit-frame-pointer"})
	out := run(t, "", []string{"KVBENCH_TRANSPORT=tcp", "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0"},
		kvcheck, serve(t, nil))
	if !strings.Contains(out, "kvcheck: PASS") {
		t.Fatalf("kvcheck under AddressSanitizer printed no PASS:\n%s", out)
	}
}

// compile builds examples/c/src against the library in dir.
func compile(t *testing.T, dir, name, src string, flags []string) string {
	t.Helper()
	bin := filepath.Join(dir, name)
	args := append(flags, "-Wall", "-Wextra", "-Werror", "-I../../include", "../../examples/c/"+src,
		"-L"+dir, "-lkvclient", "-lpthread", "-Wl,-rpath,"+dir, "-o", bin)
	run(t, "", nil, "cc", args...)
	return bin
}

// serve starts a TCP server for the test and returns its address.
func serve(t *testing.T, secret []byte) string {
	t.Helper()
	s, err := rdmakv.Listen(rdmakv.ServerConfig{Listen: "127.0.0.1:0", Transport: "tcp", PoolSize: 64 << 20,
		MaxValue: 2 << 20, AuthSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s.Addr()
}

// kvserver builds and starts cmd/kvserver over TCP on a free port and
// returns its address.
func kvserver(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "kvserver")
	run(t, "", nil, "go", "build", "-o", bin, "../kvserver")
	cmd := exec.Command(bin, "--transport", "tcp", "--listen", "127.0.0.1:0", "--pool-size", "64MiB")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(line, "kvserver listening on ")
	if err != nil || !ok {
		t.Fatalf("kvserver said %q (%v), want \"kvserver listening on ADDR\"", line, err)
	}
	return strings.Fields(addr)[0]
}

// run runs a command and returns its combined output, failing the test
// when it exits non-zero.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestDialTarget(t *testing.T) {
	for in, want := range map[string]string{
		"kv1":            "kv1:7471",
		"kv1:9000":       "kv1:9000",
		"10.0.0.1":       "10.0.0.1:7471",
		"fe80::1":        "[fe80::1]:7471",
		"[fe80::1]:9000": "[fe80::1]:9000",
	} {
		if got, err := dialTarget(in); err != nil || got != want {
			t.Errorf("dialTarget(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := dialTarget(""); err == nil {
		t.Errorf("dialTarget(\"\") succeeded")
	}
}
