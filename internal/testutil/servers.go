// Package testutil starts the servers tests drive (Redis, memcached) on
// free ports.
package testutil

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/kvtest/logbuf"
)

// Redis starts redis-server on a free loopback port for the test's life,
// with args appended to its command line, and returns its host:port.
// redis-server missing fails the test: make setup installs it.
func Redis(t testing.TB, args ...string) string {
	return startServer(t, "redis-server", func(port int) []string {
		return append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}, args...)
	})
}

// Memcached starts memcached on a free loopback port for the test's life,
// with args appended, and returns its host:port. memcached missing fails
// the test: make setup installs it.
func Memcached(t testing.TB, args ...string) string {
	return startServer(t, "memcached", func(port int) []string {
		a := []string{"-p", strconv.Itoa(port), "-U", "0", "-l", "127.0.0.1"}
		if os.Geteuid() == 0 {
			a = append(a, "-u", "root") // memcached will not run as root unless told to
		}
		return append(a, args...)
	})
}

// startServer runs name on a port it found free and waits until the port
// answers; another process can take the port between the two, so a
// server that exits early is tried again on another.
func startServer(t testing.TB, name string, args func(port int) []string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed (make setup installs it): %v", name, err)
	}
	var last error
	for range 3 {
		addr, err := tryServer(t, path, args)
		if err == nil {
			return addr
		}
		last = err
	}
	t.Fatalf("starting %s: %v", name, last)
	return ""
}

func tryServer(t testing.TB, path string, args func(port int) []string) (string, error) {
	port, err := FreePort()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(path, args(port)...)
	out := new(logbuf.Buffer)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		select {
		case err := <-exited:
			return "", fmt.Errorf("%s exited (%v): %s", path, err, out.String())
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Cleanup(func() {
				cmd.Process.Kill()
				<-exited
			})
			return addr, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Kill()
	<-exited
	return "", fmt.Errorf("%s did not listen on %s within 10s: %s", path, addr, out.String())
}

// FreePort is a TCP port on loopback that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
