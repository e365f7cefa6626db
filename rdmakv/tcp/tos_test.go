package tcp

import (
	"syscall"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// sockTOS reads a connection's socket's IP_TOS back.
func sockTOS(t *testing.T, c transport.Conn) int {
	t.Helper()
	rc, err := c.(*conn).nc.(syscall.Conn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var tos int
	var gerr error
	if err := rc.Control(func(fd uintptr) { tos, gerr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_IP, syscall.IP_TOS) }); err != nil {
		t.Fatal(err)
	}
	if gerr != nil {
		t.Fatal(gerr)
	}
	return tos
}

// Both ends carry the type of service they were configured with; none
// configured leaves the kernel's 0.
func TestTOS(t *testing.T) {
	for _, tos := range []int{0, 0x68, 0xb8} {
		cfg := smallCfg()
		cfg.TOS = tos
		p := newPair(t, cfg)
		if got := sockTOS(t, p.cli); got != tos {
			t.Errorf("dialed with TOS %#x: socket has %#x", tos, got)
		}
		if got := sockTOS(t, p.sc); got != tos {
			t.Errorf("listening with TOS %#x: accepted socket has %#x", tos, got)
		}
	}
	cfg := smallCfg()
	cfg.TOS = 256
	if _, err := (network{}).Listen("127.0.0.1:0", withMode(cfg), nil); err == nil {
		t.Error("TOS 256 accepted")
	}
}
