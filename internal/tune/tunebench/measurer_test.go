package tunebench

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

func benchConfig(d bench.Dialer) bench.Config {
	return bench.Config{
		Seed:    1,
		Keys:    workload.Keys{Count: 32, Size: 16, Distribution: "uniform"},
		Measure: workload.Phase{Ops: 200},
		Load:    workload.Load{Mode: "closed", Connections: 1, Depth: 1},
		Dialer:  d,
		Codec:   bench.Values{},
	}
}

func TestBenchMeasurerForcesProtocol(t *testing.T) {
	fake := &benchtest.Fake{Record: true}
	m := &Measurer{Config: benchConfig(fake)}
	for _, op := range []rdmakv.Op{rdmakv.OpGet, rdmakv.OpSet} {
		for _, p := range []tune.Protocol{tune.Eager, tune.Rendezvous} {
			// The fake answers eager only when key+value is below the
			// threshold, so a wrongly placed threshold shows up as the
			// other protocol and an error here.
			s, err := m.Measure(context.Background(), tune.Request{Op: op, Size: 4096, Protocol: p, Load: tune.Load{Connections: 1, Depth: 1}})
			if err != nil {
				t.Fatalf("%s %s: %v", op, p, err)
			}
			if s.OpsPerSec <= 0 || s.BytesPerSec != s.OpsPerSec*4096 {
				t.Errorf("%s %s: sample %+v", op, p, s)
			}
		}
	}
	// Only the forced op is measured: a get run issues no set after preload.
	conns := fake.Conns()
	last := conns[len(conns)-1].Ops() // set, rendezvous
	for _, r := range last {
		if r.Op != bench.OpSet {
			t.Fatalf("set run issued %v", r.Op)
		}
	}
}

// Under the adaptive policy the store's adaptive threshold is dialed,
// and the sample holds the op's operations whichever protocol carried
// them.
func TestBenchMeasurerAdaptive(t *testing.T) {
	fake := &benchtest.Fake{Record: true}
	m := &Measurer{Config: benchConfig(fake)}
	s, err := m.Measure(context.Background(), tune.Request{Op: rdmakv.OpGet, Size: 4096, Threshold: tune.AdaptiveThreshold, Load: tune.Load{Connections: 1, Depth: 1}})
	if err != nil {
		t.Fatal(err)
	}
	conns := fake.Conns()
	if c := conns[len(conns)-1]; c.Threshold() != store.AdaptiveThreshold || s.Count != 200 || s.BytesPerSec != s.OpsPerSec*4096 {
		t.Errorf("dialed threshold %d, sample %+v; want %d and the 200 gets", c.Threshold(), s, store.AdaptiveThreshold)
	}
}

// capped refuses eager above a limit by lowering the threshold, as a server
// with a smaller eager limit would.
type capped struct {
	*benchtest.Fake
	limit int
}

func (c capped) Dial(ctx context.Context, threshold int) (bench.Conn, error) {
	return c.Fake.Dial(ctx, min(threshold, c.limit))
}

func TestBenchMeasurerUnsupported(t *testing.T) {
	m := &Measurer{Config: benchConfig(capped{&benchtest.Fake{}, 1024})}
	if _, err := m.Measure(context.Background(), tune.Request{Op: rdmakv.OpSet, Size: 512, Protocol: tune.Eager, Load: tune.Load{Connections: 1, Depth: 1}}); err != nil {
		t.Fatalf("eager below the cap: %v", err)
	}
	_, err := m.Measure(context.Background(), tune.Request{Op: rdmakv.OpSet, Size: 4096, Protocol: tune.Eager, Load: tune.Load{Connections: 1, Depth: 1}})
	if !errors.Is(err, tune.ErrUnsupported) {
		t.Errorf("eager above the cap: %v, want ErrUnsupported", err)
	}
	if _, err := m.Measure(context.Background(), tune.Request{Op: rdmakv.OpDelete, Size: 64, Protocol: tune.Eager, Load: tune.Load{Connections: 1, Depth: 1}}); err == nil {
		t.Error("delete accepted")
	}
	dialErr := errors.New("threshold too large")
	m = &Measurer{
		Config:      benchConfig(bench.DialerFunc(func(context.Context, int) (bench.Conn, error) { return nil, dialErr })),
		Unsupported: func(err error) bool { return errors.Is(err, dialErr) },
	}
	if _, err := m.Measure(context.Background(), tune.Request{Op: rdmakv.OpGet, Size: 64, Protocol: tune.Eager, Load: tune.Load{Connections: 1, Depth: 1}}); !errors.Is(err, tune.ErrUnsupported) {
		t.Errorf("dial error: %v", err)
	}
}

func TestRunOverBench(t *testing.T) {
	// End to end through the runner: with no latency difference the fake
	// gives no crossover, and the run completes with every point measured.
	m := &Measurer{Config: benchConfig(&benchtest.Fake{})}
	res, err := tune.Run(context.Background(), tune.Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 1024}, Repeats: 2, KeySize: 16}, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Loads[0].Ops[0].Points {
		if len(p.Eager) != 2 || len(p.Rendezvous) != 2 {
			t.Errorf("size %d: %d eager, %d rendezvous samples", p.Size, len(p.Eager), len(p.Rendezvous))
		}
	}
}

func TestRunOverBenchServerLimit(t *testing.T) {
	// An external server with max eager 4KiB refuses, at dial, the forced
	// eager threshold key + size + 1 for 4KiB and 8KiB values (16-byte
	// keys), the way rdmakv reports ErrThreshold: eager is unmeasured
	// there, and neither limit nor rendezvous win is made of it.
	const maxEager = 4096
	errThreshold := errors.New("eager threshold above the server's maximum")
	fake := &benchtest.Fake{}
	d := bench.DialerFunc(func(ctx context.Context, th int) (bench.Conn, error) {
		if th > maxEager {
			return nil, fmt.Errorf("%w: threshold %d, server accepts at most %d", errThreshold, th, maxEager)
		}
		return fake.Dial(ctx, th)
	})
	m := &Measurer{Config: benchConfig(d), Unsupported: func(err error) bool { return errors.Is(err, errThreshold) }}
	res, err := tune.Run(context.Background(), tune.Config{Ops: []rdmakv.Op{rdmakv.OpGet, rdmakv.OpSet}, Sizes: []int{64, 1024, 4096, 8192}, Repeats: 2, KeySize: 16}, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range res.Loads[0].Ops {
		if o.Found || fmt.Sprint(o.EagerUnmeasured) != "[4096 8192]" {
			t.Errorf("%s: found=%v unmeasured=%v", o.Op, o.Found, o.EagerUnmeasured)
		}
		if !strings.Contains(o.EagerUnmeasuredReason, "at 4KiB: threshold 4113: dial: eager threshold above the server's maximum: threshold 4113, server accepts at most 4096") {
			t.Errorf("%s: reason %q", o.Op, o.EagerUnmeasuredReason)
		}
		for _, p := range o.Points {
			if measured := len(p.Eager) == 2; measured != (p.Size < 4096) || len(p.Rendezvous) != 2 {
				t.Errorf("%s %d: %d eager, %d rendezvous samples", o.Op, p.Size, len(p.Eager), len(p.Rendezvous))
			}
		}
	}
	if res.Recommended != 0 {
		t.Errorf("recommended %d", res.Recommended)
	}
}
