package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kvbench/kvbench/internal/sizegen"
	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/internal/workload"
)

// overheadWorker is noopWorker for a test.
func overheadWorker(tb testing.TB, keys workload.Keys) (*worker, epoch) {
	tb.Helper()
	w, base, err := noopWorker(keys)
	if err != nil {
		tb.Fatal(err)
	}
	return w, base
}

// BenchmarkHarnessOverhead is the harness's per-operation cost by key
// distribution, and with each set drawing its value's size from ETC's law
// (sizes-etc), or each operation its key's (keys-etc), beside the fixed
// sizes.
func BenchmarkHarnessOverhead(b *testing.B) {
	for _, c := range []struct{ name, keys, sizes string }{
		{"uniform", "uniform", ""},
		{"zipfian", "zipfian", ""},
		{"uniform/sizes-etc", "uniform", "etc, max: 1MiB"},
		{"uniform/keys-etc", "uniform", ""},
	} {
		b.Run(c.name, func(b *testing.B) {
			keys := testKeys
			keys.Distribution = c.keys
			w, base := overheadWorker(b, keys)
			if c.sizes != "" {
				d, err := workload.NewDistribution(c.sizes)
				if err != nil {
					b.Fatal(err)
				}
				w.sizes, w.buf = newSizer(d.Law(), 1), make([]byte, d.Law().Max())
				w.rec.cls = new(classRec) // a run of drawn sizes records their classes
			}
			if strings.HasSuffix(c.name, "keys-etc") {
				drawKeySizes(b, w, "{etc: , max: 250B}")
			}
			w.runClosed(base, 1000, 0) // first use allocates the histograms
			b.ReportAllocs()
			b.ResetTimer()
			reportCPU(b, func() { w.runClosed(base, int64(b.N), 0) })
		})
	}
}

// timedNoop is noop timing its operations, as a target does in a run
// that records phases.
var timedNoop = TargetFunc(func(ctx context.Context, op Op, key, value []byte, view func([]byte)) (Protocol, error) {
	if o := OpPhasesFrom(ctx); o != nil {
		o.Set(PhaseNetwork, 1000)
		o.Set(PhaseServer, 200)
	}
	return noop(ctx, op, key, value, view)
})

// drawKeySizes makes w draw its keys' sizes from spec, as keys.size
// gives it, its key buffer the longest key.
func drawKeySizes(tb testing.TB, w *worker, spec string) {
	tb.Helper()
	wl, err := workload.Parse("k.yaml", []byte(fmt.Sprintf("keys: {count: %d, size: %s}\nvalues: {sizes: [64]}\n", w.keyCount, spec)))
	if err != nil {
		tb.Fatal(err)
	}
	w.keySizes, w.keySize = newKeySizer(wl.Keys.SizeLaw(), 1), wl.Keys.Size
	w.key = make([]byte, wl.Keys.Size)
}

// TestHarnessZeroAllocs: a steady state allocates nothing per operation,
// whether the run records phases, draws its values' sizes and records
// by size class, or draws its keys' sizes.
func TestHarnessZeroAllocs(t *testing.T) {
	for _, mode := range []string{"plain", "phases", "sizes", "keys"} {
		w, base := overheadWorker(t, testKeys)
		switch mode {
		case "keys":
			drawKeySizes(t, w, "{etc: , max: 250B}")
		case "phases":
			w.t, w.phases = timedNoop, new(OpPhases)
			w.ctx = withOpPhases(w.ctx, w.phases)
		case "sizes":
			law, err := sizegen.NewWeighted([]sizegen.Weight{{Size: 64, Weight: 1}, {Size: 3000, Weight: 1}, {Size: 70000, Weight: 1}})
			if err != nil {
				t.Fatal(err)
			}
			w.sizes, w.buf, w.rec.cls = newSizer(law, 1), make([]byte, law.Max()), new(classRec)
		}
		w.runClosed(base, 1000, 0)
		if n := testing.AllocsPerRun(1000, func() { w.runClosed(base, 1, 0) }); n != 0 {
			t.Errorf("%s: %v allocations per operation, want 0", mode, n)
		}
		if mode == "phases" && w.rec.ph[OpGet][Eager][PhaseServer].TotalCount() == 0 {
			t.Error("no phases recorded")
		}
		if mode == "sizes" && w.rec.cls.hist[OpSet][Eager][classIndex(70000)].TotalCount() == 0 {
			t.Error("no size classes recorded")
		}
	}
}

// slowKeys is a key generator that takes keyTime per key. The tests that
// use it run in a synctest bubble, so its sleep is exact fake time.
type slowKeys struct{ KeyGen }

// keyTime is fifty times the store call (tick): a latency that took in the
// key's time could not pass for the call's.
const keyTime = 100 * time.Millisecond

func (k slowKeys) Next(r *rand.Rand) int64 {
	time.Sleep(keyTime)
	return k.KeyGen.Next(r)
}

// TestTimesTheStoreCallAlone: an operation's latency is its target call,
// not the harness's choice of operation and key before it. With a key
// generator fifty times slower than the target, every latency must still
// be the target's, in the closed loop and in an open one whose intended
// starts leave room to ready each operation, under either pacing.
//
// The harness runs on fake time (tickClock in a synctest bubble), where
// the key takes exactly keyTime and the call exactly one tick however
// loaded the host: each latency must be exactly the call's, and in the
// open loops each operation is readied before its intended start and
// issued on it, with no issue delay.
func TestTimesTheStoreCallAlone(t *testing.T) {
	for _, loop := range []string{"closed", "open", "open, precise pacing"} {
		t.Run(loop, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { checkCallTimed(t, loop, timedLoop(t, loop)) })
		})
	}
}

// timedLoop runs four operations in loop on fake time, the key generator
// taking keyTime and the target one tick, and returns the worker.
func timedLoop(t *testing.T, loop string) *worker {
	slow := TargetFunc(func(ctx context.Context, op Op, key, value []byte, view func([]byte)) (Protocol, error) {
		time.Sleep(tick)
		return noop(ctx, op, key, value, view)
	})
	// Each intended start, on a tick, leaves time to ready the operation.
	spaced := PacerFunc(func(n int64) (time.Duration, bool) { return time.Duration(n+1) * 3 * keyTime, true })
	w, _ := overheadWorker(t, testKeys)
	base := newEpochOn(tickClock(tick))
	w.t, w.keys = slow, slowKeys{w.keys}
	switch loop {
	case "closed":
		w.runClosed(base, 4, 0)
	case "open":
		w.runOpen(base, spaced, 4, 0, nil)
	default:
		d := newDispatcher(base, spaced, 4, 0, []chan struct{}{w.wake}, nil, w.stop)
		go d.run()
		w.runOpen(base, spaced, 4, 0, d)
		d.end()
	}
	return w
}

// checkCallTimed checks that w recorded four latencies of exactly one tick
// and, in an open loop, four issue delays of zero (none in a closed one).
func checkCallTimed(t *testing.T, loop string, w *worker) {
	var n int64
	for op := range w.rec.total {
		for _, h := range w.rec.total[op] {
			if h == nil {
				continue
			}
			n += h.TotalCount()
			if lo, hi := h.Min(), h.Max(); !h.ValuesAreEquivalent(lo, int64(tick)) || !h.ValuesAreEquivalent(hi, int64(tick)) {
				t.Errorf("%s loop: %v latencies %v..%v, want each exactly the call's %v (the key takes %v)",
					loop, Op(op), time.Duration(lo), time.Duration(hi), tick, keyTime)
			}
		}
	}
	if n != 4 {
		t.Errorf("%s loop: %d operations recorded, want 4", loop, n)
	}
	var nLate, maxLate int64
	if h := w.rec.late; h != nil {
		nLate, maxLate = h.TotalCount(), h.Max()
	}
	want := int64(4) // each readied before its intended start, issued on it
	if loop == "closed" {
		want = 0 // no schedule
	}
	if nLate != want || maxLate != 0 {
		t.Errorf("%s loop: %d issue delays, the longest %v; want %d, each 0", loop, nLate, time.Duration(maxLate), want)
	}
}

// replayLoop is a replay of a kvbench-format trace of 10,000 gets and
// sets of 64 keys, looped, on one connection as fast as it goes: run
// replays n requests through w. Precise, it replays them at half their
// recorded pace instead (2 µs apart), paced by a dispatcher, each run a
// phase of its own on base's clock.
func replayLoop(tb testing.TB, w *worker, base epoch, precise bool) (run func(n int64)) {
	tb.Helper()
	var b strings.Builder
	b.WriteString(trace.KvbenchHeader + "\n")
	for i := range 10000 {
		op := [2]string{"get", "set"}[i%2]
		fmt.Fprintf(&b, "%d,%s,k%d,%d\n", i*1000, op, i%64, 64+i%4000)
	}
	path := filepath.Join(tb.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	rp := &Replay{Path: path, Format: trace.Kvbench, Loop: true}
	if precise {
		rp.Speed = 0.5
	}
	src, err := openSource(rp, true)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(src.close)
	p := &replayer{rp: rp, src: src, keySize: w.keySize}
	return func(n int64) {
		lanes := newLanes(1, 1, w.keySize)
		quit := make(chan struct{})
		go p.feed(lanes, n, 0, false, quit)
		if precise {
			base = newEpochOn(base.clock)
			d := newReplayDispatcher(base, []*worker{w}, nil, w.stop)
			fin := make(chan struct{})
			go func() { d.run(); close(fin) }()
			w.runReplay(base, lanes[0], true, d, 0, nil)
			d.end()
			<-fin
		} else {
			w.runReplay(base, lanes[0], false, nil, 0, nil)
		}
		close(quit)
	}
}

// BenchmarkHarnessTraceReplay is BenchmarkHarnessOverhead for a replay:
// the harness's work per request, from the trace's line to the recorded
// latency, the reader's share on its own goroutine (in cpu-ns/op, not
// all in ns/op).
func BenchmarkHarnessTraceReplay(b *testing.B) {
	w, base := overheadWorker(b, testKeys)
	w.rec.cls = new(classRec)
	run := replayLoop(b, w, base, false)
	run(20000) // first use allocates the histograms and grows the value
	b.ReportAllocs()
	b.ResetTimer()
	reportCPU(b, func() { run(int64(b.N)) })
}

// reportCPU runs f and reports the process's CPU time per operation
// beside the wall time: a replay's reader works on a goroutine of its
// own, so its cost shows in cpu-ns/op and not all of it in ns/op.
func reportCPU(b *testing.B, f func()) {
	before, err := processCPU()
	if err != nil {
		b.Fatal(err)
	}
	f()
	after, err := processCPU()
	if err != nil {
		b.Fatal(err)
	}
	used := after.sub(before)
	b.ReportMetric(float64(used.User+used.Sys)/float64(b.N), "cpu-ns/op")
}

// A replay's steady state allocates nothing per request: what a phase
// allocates (its lanes, the feeder) does not grow with its requests.
func TestReplayZeroAllocs(t *testing.T) {
	w, _ := overheadWorker(t, testKeys)
	w.rec.cls = new(classRec)
	// A clock that stands still: the per-second interval histograms,
	// which allocate when they rotate, never do, however slow the host.
	run := replayLoop(t, w, newEpochOn(func() int64 { return 0 }), false)
	checkReplayAllocs(t, run)
}

// checkReplayAllocs checks that run, a replayLoop, allocates no more for
// 51,000 requests than for 1000, but for reopening the trace.
func checkReplayAllocs(t *testing.T, run func(n int64)) {
	t.Helper()
	run(20000)
	short := testing.AllocsPerRun(5, func() { run(1000) })
	long := testing.AllocsPerRun(5, func() { run(51000) })
	// Fifty thousand requests more, and a reopening of the trace for
	// every 10,000 of them: a few allocations each.
	if long-short > 5*10 {
		t.Errorf("%v allocations for 1000 requests, %v for 51000: they grow with the requests", short, long)
	}
}

// So does one paced precisely: neither the workers' waits nor the
// dispatcher's releases allocate. Its clock is the real one (the
// dispatcher must see time pass), and a run of 51,000 requests 2 µs
// apart lasts about 100 ms: the interval histograms, which allocate when
// they rotate each second, do so at most once in it. How many requests
// the worker was early for, and waited, depends on the host; it logs
// them.
func TestPacedReplayZeroAllocs(t *testing.T) {
	w, _ := overheadWorker(t, testKeys)
	w.rec.cls = new(classRec)
	checkReplayAllocs(t, replayLoop(t, w, newEpoch(), true))
	if h := w.rec.late; h != nil {
		t.Logf("%d requests waited for their time, the latest issued %v late", h.TotalCount(), time.Duration(h.Max()))
	}
}
