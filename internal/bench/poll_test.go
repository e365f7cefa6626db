package bench

import (
	"errors"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

func TestEffectivePoll(t *testing.T) {
	for _, c := range []struct{ poll, tr, want string }{
		{"", "verbs", PollBusy},
		{PollEvent, "verbs", PollEvent},
		{PollBusy, "verbs", PollBusy},
		{"", "tcp", PollEvent},
		{PollEvent, "tcp", PollEvent},
	} {
		if got := EffectivePoll(c.poll, c.tr); got != c.want {
			t.Errorf("EffectivePoll(%q, %q) = %q, want %q", c.poll, c.tr, got, c.want)
		}
	}
}

func TestEmbeddedPolls(t *testing.T) {
	c := EmbeddedConfig{Keys: 1, KeySize: 4, MaxValue: 64, Workers: 1}
	cfg, err := c.Plan(0)
	if err != nil {
		t.Fatal(err)
	}
	// On verbs the address is the RDMA device's, never loopback; without a
	// device that is ErrNoDevice, and the polling is set all the same.
	busy, err := c.forTransport(cfg, "verbs")
	switch {
	case errors.Is(err, transport.ErrNoDevice):
	case err != nil:
		t.Fatal(err)
	case strings.HasPrefix(busy.Listen, "127.") || strings.HasPrefix(busy.Listen, "[::1]"):
		t.Errorf("verbs listens on %s: loopback does not route over RDMA", busy.Listen)
	}
	if busy.Transport != "verbs" || busy.Poll != transportPoll(PollBusy) || busy.BusyIdle != EmbeddedBusyIdle {
		t.Errorf("verbs, poll unset: transport %q poll %v idle %v; want verbs, busy, %v", busy.Transport, busy.Poll, busy.BusyIdle, EmbeddedBusyIdle)
	}
	c.Poll = PollEvent
	if ev, _ := c.forTransport(cfg, "verbs"); ev.Poll != transportPoll(PollEvent) || ev.BusyIdle != 0 {
		t.Errorf("verbs, poll event: poll %v idle %v", ev.Poll, ev.BusyIdle)
	}
	c.Poll = ""
	if tcp, err := c.forTransport(cfg, "tcp"); err != nil || tcp.Listen != "127.0.0.1:0" || tcp.Transport != "tcp" || tcp.Poll != transportPoll(PollEvent) || tcp.BusyIdle != 0 {
		t.Errorf("tcp: %+v", tcp)
	}
}
