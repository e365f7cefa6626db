package rdmakvstore

import (
	"errors"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
	_ "github.com/kvbench/kvbench/rdmakv/tcp"
)

func TestPollMode(t *testing.T) {
	for poll, want := range map[string]rdmakv.Poll{"": rdmakv.PollBusy, PollBusy: rdmakv.PollBusy, PollEvent: rdmakv.PollEvent} {
		if got := pollMode(poll); got != want {
			t.Errorf("pollMode(%q) = %v, want %v", poll, got, want)
		}
	}
}

func TestEmbeddedPolls(t *testing.T) {
	c := EmbeddedConfig{Transport: "tcp", Keys: 1, KeySize: 4, MaxValue: 64, Workers: 1}
	busy, err := c.Plan(0)
	if err != nil {
		t.Fatal(err)
	}
	if !busy.Local || busy.Listen != "" || busy.Poll != rdmakv.PollBusy || busy.BusyIdle != EmbeddedBusyIdle {
		t.Errorf("poll unset: local %v listen %q poll %v idle %v; want a local busy server idling after %v",
			busy.Local, busy.Listen, busy.Poll, busy.BusyIdle, EmbeddedBusyIdle)
	}
	c.Poll = PollEvent
	if ev, _ := c.Plan(0); ev.Poll != rdmakv.PollEvent || ev.BusyIdle != 0 {
		t.Errorf("poll event: poll %v idle %v", ev.Poll, ev.BusyIdle)
	}
	// tcp waits on its socket whatever is asked, and says so.
	c.Poll = ""
	emb, err := StartEmbedded(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	if info := emb.Info(); info.Transport != "tcp" || info.Poll != rdmakv.PollEvent || !strings.HasPrefix(emb.Addr(), "127.0.0.1:") {
		t.Errorf("tcp: %+v on %s", info, emb.Addr())
	}
}

// Without the verbs transport linked in, asking for verbs fails and says
// what to import; auto falls back to tcp.
func TestEmbeddedWithoutVerbs(t *testing.T) {
	c := EmbeddedConfig{Transport: "verbs", Keys: 1, KeySize: 4, MaxValue: 64, Workers: 1}
	if _, err := StartEmbedded(c, 0); err == nil || !strings.Contains(err.Error(), "rdmakv/verbs") {
		t.Errorf("verbs without the transport: %v", err)
	}
	c.Transport = "auto"
	emb, err := StartEmbedded(c, 0)
	if errors.Is(err, rdmakv.ErrNoDevice) || err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	if emb.Info().Transport != "tcp" {
		t.Errorf("auto chose %s", emb.Info().Transport)
	}
}

func TestEmbeddedMemoryLimit(t *testing.T) {
	_, err := EmbeddedConfig{Transport: "tcp", Keys: 1 << 20, KeySize: 16, MaxValue: 64 << 20, MaxThreshold: 4096, Workers: 8}.Plan(16 << 30)
	if err == nil || !strings.Contains(err.Error(), "reduce keys.count") {
		t.Errorf("a 64 TiB pool was accepted or explained poorly: %v", err)
	}
}
