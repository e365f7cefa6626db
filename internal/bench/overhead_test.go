package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/workload"
)

var noop = TargetFunc(func(_ context.Context, op Op, _, _ []byte, view func([]byte)) (Protocol, error) {
	if op == OpGet && view != nil {
		view(nil)
	}
	return Eager, nil
})

// overheadWorker is a worker on a no-op target recording into a measure
// phase, so that a loop over it costs exactly the harness's per-operation
// work: drawing the operation and key, formatting the key, two clock reads
// and histogram recording.
func overheadWorker(tb testing.TB, keys workload.Keys) (*worker, time.Time) {
	tb.Helper()
	g, err := keygen.New(keys)
	if err != nil {
		tb.Fatal(err)
	}
	var stop atomic.Bool
	base := time.Now()
	w := &worker{
		id: 0, workers: 1, t: noop, ctx: context.Background(), stop: &stop,
		codec: Values{}, keys: g, keyCount: int64(keys.Count), keySize: keys.Size,
		getP: 0.5, setP: 1, rng: keygen.NewRand(1, 0),
		key: make([]byte, keys.Size), val: make([]byte, 64), pub: new(pub),
	}
	w.init()
	w.rec = &recorder{sink: newCollector(1, base.UnixMilli())}
	return w, base
}

func BenchmarkHarnessOverhead(b *testing.B) {
	for _, dist := range []string{"uniform", "zipfian"} {
		b.Run(dist, func(b *testing.B) {
			keys := testKeys
			keys.Distribution = dist
			w, base := overheadWorker(b, keys)
			w.runClosed(base, 1000, 0) // first use allocates the histograms
			b.ReportAllocs()
			b.ResetTimer()
			w.runClosed(base, int64(b.N), 0)
		})
	}
}

func TestHarnessZeroAllocs(t *testing.T) {
	w, base := overheadWorker(t, testKeys)
	w.runClosed(base, 1000, 0)
	if n := testing.AllocsPerRun(1000, func() { w.runClosed(base, 1, 0) }); n != 0 {
		t.Errorf("%v allocations per operation, want 0", n)
	}
}
