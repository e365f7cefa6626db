//go:build rdmavm && linux && cgo

package verbs

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// TestPortDownEndsConnections takes the rig's link down: the device's
// PORT_ERR ends the connections on that port, both ends, with ErrFatal,
// and what is tried on them after fails with ErrFatal and ErrClosed.
// guest-test.sh runs it on its own, after the rest: with the link back
// up, the guest's rxe (Debian 12's 6.1) makes no new connection while the
// process lives (a fresh listener's neither, tried for 80 s).
func TestPortDownEndsConnections(t *testing.T) {
	ifname := rigInterface(t)
	cfg := testConfig(transport.PollEvent)
	s := startServer(t, cfg, true)
	rec := newRecorder(false)
	c := dialTest(t, s, cfg, rec)
	_, srec := s.accepted(t)
	link(t, ifname, "down")
	restored := false
	defer func() {
		if !restored {
			link(t, ifname, "up")
		}
	}()
	guard(t, 60*time.Second, func() {
		for side, r := range map[string]*recorder{"client": rec, "server": srec} {
			if err := <-r.closed; !errors.Is(err, transport.ErrFatal) {
				t.Errorf("%s closed with %v, want ErrFatal", side, err)
			}
		}
		if err := c.Send([]byte("after"), nil, nil); !errors.Is(err, transport.ErrFatal) || !errors.Is(err, transport.ErrClosed) {
			t.Errorf("send on the ended connection: %v, want ErrFatal and ErrClosed", err)
		}
	})
	link(t, ifname, "up")
	restored = true
	waitPortActive(t)
}

// rigInterface is the network interface that holds RDMAKV_ADDR.
func rigInterface(t *testing.T) string {
	t.Helper()
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range ifs {
		addrs, _ := i.Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.String() == vmAddr(t) {
				return i.Name
			}
		}
	}
	t.Fatalf("no interface holds %s", vmAddr(t))
	return ""
}

func link(t *testing.T, ifname, state string) {
	t.Helper()
	if out, err := exec.Command("ip", "link", "set", ifname, state).CombinedOutput(); err != nil {
		t.Fatalf("ip link set %s %s: %v: %s", ifname, state, err, out)
	}
}

// waitPortActive waits for every RDMA port to say ACTIVE again.
func waitPortActive(t *testing.T) {
	t.Helper()
	states, _ := filepath.Glob("/sys/class/infiniband/*/ports/*/state")
	if len(states) == 0 {
		t.Fatal("no RDMA port state in sysfs")
	}
	deadline := time.Now().Add(60 * time.Second)
	for _, f := range states {
		for {
			b, err := os.ReadFile(f)
			if err == nil && strings.Contains(string(b), "ACTIVE") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %s after 60s (hang guard)", f, b)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// A server connection closed with its client's messages still arriving
// leaves the shared receive queue whole: every receive it took comes back
// (its QP's teardown waits for LAST_WQE_REACHED where the provider sends
// it; Debian 12's rxe does not, and the wait is then brief), so another
// connection can fill every one of them.
func TestSharedReceivesSurviveClose(t *testing.T) {
	cfg := transport.Config{MaxMessage: 4096, RecvDepth: 8, SendDepth: 16, Poll: transport.PollEvent}
	keep := keeper{make(chan *transport.Message, 64)}
	first := newRecorder(false)
	n := 0
	l, err := network{}.Listen(vmAddr(t)+":0", cfg, func(transport.Conn) transport.Handler {
		n++
		if n == 1 {
			return first
		}
		return keep
	})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := &server{l: l}
	ccfg := transport.Config{MaxMessage: 4096, RecvDepth: 4, SendDepth: 16, Poll: transport.PollEvent}
	a := dialTest(t, s, ccfg, newRecorder(false))
	guard(t, 60*time.Second, func() {
		for i := range 6 {
			if err := a.Send([]byte(fmt.Sprintf("burst %d", i)), nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		a.Close()
		<-first.closed
	})
	b := dialTest(t, s, ccfg, newRecorder(false))
	var held []*transport.Message
	guard(t, 60*time.Second, func() {
		for i := range 8 {
			if err := b.Send([]byte(fmt.Sprintf("fill %d", i)), nil, nil); err != nil {
				t.Fatal(err)
			}
			held = append(held, <-keep.got)
		}
	})
	for _, m := range held {
		m.Release()
	}
}
