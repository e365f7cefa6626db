package bench_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/sizegen"
	"github.com/kvbench/kvbench/internal/workload"
)

// issued is one operation a run sent: its op, key and value size (a
// set's).
type issued struct {
	op   bench.Op
	key  string
	size int
}

// logDialer keeps what each connection was sent, over a store that holds
// values so that gets find them.
type logDialer struct {
	mu   sync.Mutex
	data map[string]int
	logs [][]issued
}

func (d *logDialer) Dial(context.Context, int) (bench.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.data == nil {
		d.data = map[string]int{}
	}
	d.logs = append(d.logs, nil)
	i := len(d.logs) - 1
	return &logConn{d: d, i: i}, nil
}

type logConn struct {
	d *logDialer
	i int
	// vals holds the values set, so that a verifying run reads back
	// what it wrote.
	vals map[string][]byte
}

func (c *logConn) log(op bench.Op, key []byte, size int) {
	c.d.mu.Lock()
	defer c.d.mu.Unlock()
	c.d.logs[c.i] = append(c.d.logs[c.i], issued{op, string(key), size})
}

func (c *logConn) Set(_ context.Context, key, value []byte) (bench.Protocol, error) {
	c.log(bench.OpSet, key, len(value))
	if c.vals == nil {
		c.vals = map[string][]byte{}
	}
	c.vals[string(key)] = append([]byte(nil), value...)
	return bench.Eager, nil
}

func (c *logConn) Get(_ context.Context, key []byte, view func([]byte)) (bench.Protocol, error) {
	c.log(bench.OpGet, key, 0)
	v, ok := c.vals[string(key)]
	if !ok {
		return bench.Eager, bench.ErrNotFound
	}
	if view != nil {
		view(v)
	}
	return bench.Eager, nil
}

func (c *logConn) Delete(_ context.Context, key []byte) (bench.Protocol, error) {
	c.log(bench.OpDelete, key, 0)
	delete(c.vals, string(key))
	return bench.Eager, nil
}

func (c *logConn) Close() error { return nil }

// sequenced is what a Sequence of cfg gives, split by worker (slot mod
// workers), gets' sizes left out as the log leaves them.
func sequenced(t *testing.T, cfg bench.Config) [][]issued {
	t.Helper()
	s, err := bench.NewSequence(cfg)
	if err != nil {
		t.Fatal(err)
	}
	W := cfg.Workers()
	out := make([][]issued, W)
	for g := 0; ; g++ {
		o, ok := s.Next()
		if !ok {
			break
		}
		if o.Op != bench.OpSet {
			o.ValueSize = 0
		}
		out[g%W] = append(out[g%W], issued{o.Op, string(o.Key), o.ValueSize})
	}
	return out
}

func drawnSizes(t *testing.T) sizegen.Distribution {
	t.Helper()
	law, err := sizegen.NewUniform(1, 5000)
	if err != nil {
		t.Fatal(err)
	}
	return law
}

// A sequence is what a run issues in its first cell's measure phase,
// worker by worker: ops, keys and drawn sizes, after a warmup (which
// numbers the sizes) and a verifying preload (which takes the first
// versions). A closed loop's is the open loop's at any rate.
func TestSequenceIsTheRuns(t *testing.T) {
	for _, tc := range []struct {
		name        string
		load        workload.Load
		verify      bool
		before      int // operations each connection sees before the measure phase
		openAt      float64
		warmupOps   int64
		measureOps  int64
		preloadKeys int
	}{
		{name: "open", load: workload.Load{Mode: "open", Rate: 200000, Connections: 3, Depth: 1},
			warmupOps: 300, measureOps: 3000, before: 100},
		{name: "closed verify", load: workload.Load{Mode: "closed", Connections: 2, Depth: 1},
			verify: true, openAt: 1e6, warmupOps: 200, measureOps: 1000, preloadKeys: 200, before: 100 + 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &logDialer{}
			cfg := bench.Config{
				Seed: 11, Keys: workload.Keys{Count: 200, Size: 12, Distribution: "zipfian", ZipfianConstant: 0.9},
				ValueSizes: []int{2500}, Sizes: drawnSizes(t), Thresholds: []int{4096},
				Mix:    workload.Mix{Get: 0.5, Set: 0.4, Delete: 0.1},
				Warmup: workload.Phase{Ops: tc.warmupOps}, Measure: workload.Phase{Ops: tc.measureOps},
				Load: tc.load, Verify: tc.verify, Preload: tc.preloadKeys > 0, FreshServer: true,
				Dialer: d, Codec: bench.Values{},
			}
			rep := run(t, cfg)
			if rep.Verify.Failed() {
				t.Fatalf("verify: %+v", rep.Verify)
			}
			if tc.openAt > 0 {
				cfg.Load.Mode, cfg.Load.Rate = "open", tc.openAt
			}
			want := sequenced(t, cfg)
			if len(d.logs) != len(want) {
				t.Fatalf("%d connections, %d workers", len(d.logs), len(want))
			}
			for i, log := range d.logs {
				got := log[tc.before:]
				if len(got) != len(want[i]) || !slices.Equal(got, want[i]) {
					t.Errorf("worker %d: the run issued %d operations, the sequence has %d; first difference at %d",
						i, len(got), len(want[i]), firstDiff(got, want[i]))
				}
			}
		})
	}
}

func firstDiff(a, b []issued) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// Times are the schedule's; a duration ends it; a get finds the size last
// written to its key, or the preload's.
func TestSequenceTimesAndGets(t *testing.T) {
	cfg := bench.Config{
		Seed: 3, Keys: workload.Keys{Count: 50, Size: 8, Distribution: "uniform"},
		ValueSizes: []int{100}, Thresholds: []int{4096},
		Mix:     workload.Mix{Get: 0.6, Set: 0.3, Delete: 0.1},
		Measure: workload.Phase{Duration: workload.Duration(2 * time.Second)},
		Load:    workload.Load{Mode: "open", Rate: 500, Connections: 2, Depth: 2},
		Preload: true,
	}
	s, err := bench.NewSequence(cfg)
	if err != nil {
		t.Fatal(err)
	}
	last := map[int64]int{}
	n := 0
	for ; ; n++ {
		o, ok := s.Next()
		if !ok {
			break
		}
		if want := time.Duration(n) * 2 * time.Millisecond; o.Time != want {
			t.Fatalf("operation %d at %v, want %v", n, o.Time, want)
		}
		if !strings.HasPrefix(string(o.Key), "k") || len(o.Key) != 8 {
			t.Fatalf("key %q", o.Key)
		}
		size, written := last[o.KeyIndex]
		switch o.Op {
		case bench.OpSet:
			last[o.KeyIndex] = o.ValueSize
		case bench.OpDelete:
			last[o.KeyIndex] = 0
		case bench.OpGet:
			if !written {
				size = 100
			}
			if o.ValueSize != size {
				t.Fatalf("get %d of key %d finds %d bytes, want %d", n, o.KeyIndex, o.ValueSize, size)
			}
		}
	}
	if n != 1000 {
		t.Errorf("%d operations in 2 s at 500/s, want 1000", n)
	}

	cfg.Load = workload.Load{Mode: "closed", Connections: 1, Depth: 1}
	if _, err := bench.NewSequence(cfg); err == nil || !strings.Contains(err.Error(), "open loop") {
		t.Errorf("a closed loop: %v", err)
	}
}
