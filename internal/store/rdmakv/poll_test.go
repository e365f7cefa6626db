package rdmakvstore

import (
	"errors"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/sizegen"
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

// A server for values drawn from a distribution holds its keys at the
// blocks they draw, with room to spare, not all at the largest; a law
// whose room would pass that is held at the largest.
func TestEmbeddedPlanDistribution(t *testing.T) {
	w, err := sizegen.NewWeighted([]sizegen.Weight{{Size: 100, Weight: 99}, {Size: 1 << 20, Weight: 1}})
	if err != nil {
		t.Fatal(err)
	}
	c := EmbeddedConfig{Transport: "tcp", Keys: 10000, KeySize: 16, MaxValue: 1 << 20, MaxThreshold: 4096, Workers: 4}
	fixed, err := c.Plan(0)
	if err != nil {
		t.Fatal(err)
	}
	c.Sizes = w
	drawn, err := c.Plan(0)
	if err != nil {
		t.Fatal(err)
	}
	// The keys' blocks: 128 B for 99%, 1 MiB for 1%.
	mean := 0.99*128 + 0.01*(1<<20)
	if float64(drawn.PoolSize) < 2*10000*mean || drawn.PoolSize > fixed.PoolSize/10 || drawn.MaxValue != 1<<20 {
		t.Errorf("pool %d for a mean block of %.0f (at the largest: %d), max value %d", drawn.PoolSize, mean, fixed.PoolSize, drawn.MaxValue)
	}
	c.Sizes, c.Keys = must(sizegen.NewWeighted([]sizegen.Weight{{Size: 1 << 20, Weight: 1}})), 10
	if same, err := c.Plan(0); err != nil || same.PoolSize != must(EmbeddedConfig{Transport: "tcp", Keys: 10, KeySize: 16, MaxValue: 1 << 20, MaxThreshold: 4096, Workers: 4}.Plan(0)).PoolSize {
		t.Errorf("a law of one size: pool %d, %v", same.PoolSize, err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
