package bench

import "testing"

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
	busy := c.withPoll(cfg, "verbs")
	if busy.Transport != "verbs" || busy.Poll != transportPoll(PollBusy) || busy.BusyIdle != EmbeddedBusyIdle {
		t.Errorf("verbs, poll unset: transport %q poll %v idle %v; want verbs, busy, %v", busy.Transport, busy.Poll, busy.BusyIdle, EmbeddedBusyIdle)
	}
	c.Poll = PollEvent
	if ev := c.withPoll(cfg, "verbs"); ev.Poll != transportPoll(PollEvent) || ev.BusyIdle != 0 {
		t.Errorf("verbs, poll event: poll %v idle %v", ev.Poll, ev.BusyIdle)
	}
	c.Poll = ""
	if tcp := c.withPoll(cfg, "tcp"); tcp.Transport != "tcp" || tcp.Poll != transportPoll(PollEvent) || tcp.BusyIdle != 0 {
		t.Errorf("tcp: %+v", tcp)
	}
}
