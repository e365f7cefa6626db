package bench

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/workload"
)

// noop is a target that does nothing: a worker driving it costs exactly
// the harness's own per-operation work.
var noop = TargetFunc(func(_ context.Context, op Op, _, _ []byte, view func([]byte)) (Protocol, error) {
	if op == OpGet && view != nil {
		view(nil)
	}
	return Eager, nil
})

// costKeys are the keys MeasureCost draws: uniform, whose draw is the
// cheapest (BenchmarkHarnessOverhead shows the others), over few enough
// keys that the generator is built at once.
var costKeys = workload.Keys{Count: 10000, Size: 16, Distribution: "uniform"}

// noopWorker is a worker on the no-op target recording into a measure
// phase, so that a loop over it costs exactly the harness's
// per-operation work: drawing the operation and key, formatting the key,
// two clock reads and histogram recording.
func noopWorker(keys workload.Keys) (*worker, epoch, error) {
	g, err := keygen.New(keys.Spec())
	if err != nil {
		return nil, epoch{}, err
	}
	base := newEpoch()
	w := &worker{
		id: 0, workers: 1, t: noop, ctx: context.Background(), stop: new(atomic.Bool),
		codec: Values{}, keys: g, keyCount: int64(keys.Count), keySize: keys.Size,
		getP: 0.5, setP: 1, rng: keygen.NewRand(1, 0),
		key: make([]byte, keys.Size), val: make([]byte, 64), pub: new(pub),
	}
	w.init()
	w.rec = &recorder{sink: newCollector(1, base.t.UnixMilli())}
	return w, base, nil
}

// costBatch is how many operations or clock reads MeasureCost does
// between looks at the clock, so that looking costs a thousandth.
const costBatch = 1000

// MeasureCost measures the harness's own cost on this host (see
// results.HarnessCost) for about d: half driving the no-op target, half
// reading the clock the harness times operations with (nanotime).
func MeasureCost(d time.Duration) (results.HarnessCost, error) {
	w, base, err := noopWorker(costKeys)
	if err != nil {
		return results.HarnessCost{}, err
	}
	w.runClosed(base, costBatch, 0) // first use allocates the histograms
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	ops, took := repeat(d/2, func() { w.runClosed(base, costBatch, 0) })
	runtime.ReadMemStats(&m1)
	var sink int64
	reads, clockTook := repeat(d/2, func() {
		for range costBatch {
			sink += nanotime()
		}
	})
	_ = sink
	return results.HarnessCost{
		OverheadNs:  float64(took) / float64(ops),
		AllocsPerOp: float64(m1.Mallocs-m0.Mallocs) / float64(ops),
		ClockReadNs: float64(clockTook) / float64(reads),
	}, nil
}

// repeat runs batch, costBatch units each, until d has passed (at least
// once), and returns the units done and the time they took.
func repeat(d time.Duration, batch func()) (n int64, took time.Duration) {
	start := nanotime()
	for {
		batch()
		n += costBatch
		if took = time.Duration(nanotime() - start); took >= d {
			return n, took
		}
	}
}
