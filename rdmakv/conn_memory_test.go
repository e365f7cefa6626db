//go:build !race && linux

// The race detector's shadow memory swamps these figures: make test runs
// this file in a plain build. They are read from /proc: Linux only.

package rdmakv

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
)

// footprint is this process's memory: Go heap and stacks in use, and the
// anonymous resident set, which adds what is mapped outside the Go heap.
// The resident set is RssAnon, not VmRSS: VmRSS also counts the pages of
// the binary and of the libraries, which page-cache pressure from other
// processes evicts and the next fault brings back, whatever the
// connections hold. And the runtime is made to return the heap memory it
// has freed first, so the figure does not depend on whether its
// scavenger, which returns it at a pace of its own, has yet.
type footprint struct{ heap, rss int64 }

func measure(t *testing.T) footprint {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory() // a second collection, then every free page returned
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	rss := int64(-1)
	for l := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "RssAnon:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatalf("/proc/self/status: %q: %v", l, err)
			}
			rss = kb << 10
		}
	}
	if rss < 0 {
		t.Fatal("/proc/self/status has no RssAnon line")
	}
	return footprint{heap: int64(m.HeapAlloc + m.StackInuse), rss: rss}
}

func (f footprint) per(before footprint, n int) footprint {
	return footprint{heap: (f.heap - before.heap) / int64(n), rss: (f.rss - before.rss) / int64(n)}
}

// TestConnectionMemory measures what a TCP connection costs, server and
// client apart: the server runs in a child process (this test binary
// again), which reports its own footprint. Before HELLO the server may hold
// nothing sizeable for a peer; an idle connection after use keeps no
// staging and little else on either side. go test -v prints the figures,
// for the raw path and for the net.Conn path (ServerConfig.NetConn,
// WithNetConn).
func TestConnectionMemory(t *testing.T) {
	if path := os.Getenv(memoryServerEnv); path != "" {
		memoryServer(t, path == "netconn")
		return
	}
	for _, path := range []string{"raw", "netconn"} {
		t.Run(path, func(t *testing.T) { testConnectionMemory(t, path == "netconn") })
	}
}

func testConnectionMemory(t *testing.T, netConn bool) {
	srv := startMemoryServer(t, netConn)
	const n = 400
	base := srv.measure(t)
	var socks []net.Conn
	for range n {
		c, err := net.Dial("tcp", srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		socks = append(socks, c)
	}
	pre := srv.waitConns(t, n).per(base, n)
	t.Logf("server, per connection before HELLO: heap and stacks %d B, anonymous resident %d B", pre.heap, pre.rss)
	if pre.heap > 16<<10 {
		t.Errorf("a connection without HELLO holds %d bytes of the server's heap, want at most 16 KiB", pre.heap)
	}
	for _, c := range socks {
		c.Close()
	}
	srv.waitConns(t, 0)

	const m = 200
	sbase, cbase := srv.measure(t), measure(t)
	ctx := context.Background()
	var clients []*Client
	for range m {
		c := memoryDial(t, srv.addr, netConn)
		if err := c.Set(ctx, []byte("k"), coreFill(100, 1)); err != nil {
			t.Fatal(err)
		}
		if err := c.Set(ctx, []byte("big"), coreFill(32<<10, 2)); err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	for _, c := range clients {
		waitRegistered(t, c, 0)
	}
	client := measure(t).per(cbase, m)
	server := srv.waitConns(t, m).per(sbase, m)
	t.Logf("idle connection after use, client side: heap and stacks %d B, anonymous resident %d B", client.heap, client.rss)
	t.Logf("idle connection after use, server side: heap and stacks %d B, anonymous resident %d B", server.heap, server.rss)
	if client.rss > 64<<10 || client.heap > 64<<10 {
		t.Errorf("an idle TCP client keeps %d heap and %d resident bytes, want at most 64 KiB", client.heap, client.rss)
	}
	if server.rss > 64<<10 || server.heap > 64<<10 {
		t.Errorf("the server keeps %d heap and %d resident bytes for an idle client, want at most 64 KiB", server.heap, server.rss)
	}
}

const memoryServerEnv = "RDMAKV_MEMORY_SERVER"

func memoryDial(t *testing.T, addr string, netConn bool) *Client {
	t.Helper()
	c, err := Dial(context.Background(), addr, WithEagerThreshold(1024), withStagingIdle(20*time.Millisecond), WithNetConn(netConn))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// memoryServer is the child: it serves, and on each line read prints its
// connection count and footprint, until its input closes.
func memoryServer(t *testing.T, netConn bool) {
	s, _ := coreServer(t, func(c *ServerConfig) {
		c.MaxConns, c.MaxHandshakes, c.HandshakeTimeout, c.NetConn = 4096, 4096, time.Minute, netConn
	})
	fmt.Println("addr", s.Addr())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		s.connMu.Lock()
		n := len(s.conns)
		s.connMu.Unlock()
		f := measure(t)
		fmt.Println("conns", n, f.heap, f.rss)
	}
}

type memoryPeer struct {
	addr string
	in   io.WriteCloser
	out  *bufio.Scanner
}

func startMemoryServer(t *testing.T, netConn bool) *memoryPeer {
	t.Helper()
	path := "raw"
	if netConn {
		path = "netconn"
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestConnectionMemory$")
	cmd.Env = append(os.Environ(), memoryServerEnv+"="+path)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	p := &memoryPeer{in: in, out: bufio.NewScanner(out)}
	for p.out.Scan() {
		if a, ok := strings.CutPrefix(p.out.Text(), "addr "); ok {
			p.addr = a
			return p
		}
	}
	t.Fatal("the server process did not start")
	return nil
}

// ask returns the server's connection count and footprint.
func (p *memoryPeer) ask(t *testing.T) (int, footprint) {
	t.Helper()
	fmt.Fprintln(p.in)
	for p.out.Scan() {
		var n int
		var f footprint
		if _, err := fmt.Sscanf(p.out.Text(), "conns %d %d %d", &n, &f.heap, &f.rss); err == nil {
			return n, f
		}
	}
	t.Fatal("the server process went away")
	return 0, footprint{}
}

func (p *memoryPeer) measure(t *testing.T) footprint {
	_, f := p.ask(t)
	return f
}

// waitConns waits until the server holds n connections and returns its
// footprint then. The minute is a hang guard: the wait ends when they are
// there.
func (p *memoryPeer) waitConns(t *testing.T, n int) footprint {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got, f := p.ask(t)
		if got == n {
			return f
		}
		if time.Now().After(deadline) {
			t.Fatalf("server holds %d connections, want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
