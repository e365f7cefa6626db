//go:build rdmavm && linux && cgo

package verbs

import (
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// TestDevicesRXE: the guest's Soft-RoCE device is listed with an active
// Ethernet port, type-2 windows, some inline data and a shared receive
// queue made, as rdmakv uses it.
func TestDevicesRXE(t *testing.T) {
	ds, err := Devices()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Err != nil || len(d.Ports) == 0 || d.MaxQPWR == 0 {
			continue
		}
		p := d.Ports[0]
		if p.State != "ACTIVE" || p.LinkLayer != "Ethernet" || p.MTU == 0 || !d.Windows || d.MaxInline == 0 || d.SRQErr != nil {
			t.Errorf("%s: %+v; want an active Ethernet port with an MTU, windows, inline data and an SRQ made", d.Name, d)
		}
		return
	}
	t.Fatalf("no usable device among %+v", ds)
}

// TestRNRTimerShort: both ends of a connection ask a peer that finds no
// receive posted to retry after 0.64 ms, not rdma_cm's 655 ms.
func TestRNRTimerShort(t *testing.T) {
	cfg := testConfig(transport.PollEvent)
	s := startServer(t, cfg, true)
	client := dialTest(t, s, cfg, newRecorder(false))
	server, _ := s.accepted(t)
	for name, c := range map[string]transport.Conn{"client": client, "server": server} {
		got, err := c.(*conn).rnrTimerNow()
		if err != nil || got != rnrTimer {
			t.Errorf("%s QP's min_rnr_timer is %d (%v), want %d", name, got, err, rnrTimer)
		}
	}
}

// TestTOSRoute: a client dialed with a type of service resolves a route in
// that RoCE traffic class.
func TestTOSRoute(t *testing.T) {
	cfg := testConfig(transport.PollEvent)
	cfg.TOS = 0x68
	s := startServer(t, cfg, true)
	client := dialTest(t, s, cfg, newRecorder(false))
	if got := client.(*conn).routeTClass(); got != cfg.TOS {
		t.Errorf("route traffic class %#x, want %#x", got, cfg.TOS)
	}
	plain := dialTest(t, s, testConfig(transport.PollEvent), newRecorder(false))
	if got := plain.(*conn).routeTClass(); got != 0 {
		t.Errorf("route traffic class %#x without a TOS, want 0", got)
	}
}
