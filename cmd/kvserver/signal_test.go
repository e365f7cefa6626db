package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
)

// TestMain lets the tests run the real main in a child process: signals
// and exit codes can only be checked from outside.
func TestMain(m *testing.M) {
	if os.Getenv("KVSERVER_TEST_MAIN") == "1" {
		os.Args = append([]string{"kvserver"}, strings.Fields(os.Getenv("KVSERVER_TEST_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runMain(t *testing.T, args string) (*exec.Cmd, *bufio.Reader, *logbuf.Buffer) {
	t.Helper()
	return runMainVia(t, nil, args)
}

// runMainVia is runMain under a command that runs another (taskset).
func runMainVia(t *testing.T, via []string, args string) (*exec.Cmd, *bufio.Reader, *logbuf.Buffer) {
	t.Helper()
	argv := append(append([]string(nil), via...), os.Args[0], "-test.run=^$")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "KVSERVER_TEST_MAIN=1", "KVSERVER_TEST_ARGS="+args)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &logbuf.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, bufio.NewReader(stdout), stderr
}

// waitExit returns the child's exit code; the timer is a hang guard.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(20 * time.Second):
		t.Fatal("kvserver did not exit (hang guard)")
		return -1
	}
}

func TestSignalsStopCleanly(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, out, stderr := runMain(t, "--listen 127.0.0.1:0 --pool-size 1MiB --transport tcp")
			line, err := out.ReadString('\n')
			if err != nil || !strings.HasPrefix(line, "kvserver listening on 127.0.0.1:") {
				t.Fatalf("first line %q (%v); stderr %s", line, err, stderr)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := waitExit(t, cmd); code != 0 {
				t.Fatalf("exit code %d after %v, want 0; stderr %s", code, sig, stderr)
			}
		})
	}
}

func TestBadFlagsExitNonZero(t *testing.T) {
	for _, args := range []string{"--pool-size 3furlongs", "--no-such-flag", "stray-argument", "--metrics no-port-here"} {
		cmd, _, stderr := runMain(t, args)
		if code := waitExit(t, cmd); code == 0 {
			t.Errorf("%q: exit code 0", args)
		}
		if !strings.HasPrefix(stderr.String(), "kvserver: ") {
			t.Errorf("%q: stderr %q does not start with a kvserver: error line", args, stderr.String())
		}
	}
}

// TestStatsSignal: SIGUSR1 logs what the server holds and the server goes
// on serving.
func TestStatsSignal(t *testing.T) {
	cmd, out, stderr := runMain(t, "--listen 127.0.0.1:0 --pool-size 1MiB --transport tcp")
	line, err := out.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "kvserver listening on 127.0.0.1:") {
		t.Fatalf("first line %q (%v); stderr %s", line, err, stderr)
	}
	if err := cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	want := "msg=\"kvserver stats\" conns=0 keys=0 pool_used=0 pool_size=1048576 goroutines="
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(stderr.String(), want) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), want) {
		t.Fatalf("stderr %q, want a line with %q", stderr, want)
	}
	if !regexp.MustCompile(` cpu_user=\S+ cpu_sys=\S+`).MatchString(stderr.String()) {
		t.Errorf("stderr %q: the stats line has no CPU times", stderr)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != 0 {
		t.Fatalf("exit code %d after SIGUSR1 then SIGTERM, want 0; stderr %s", code, stderr)
	}
}
