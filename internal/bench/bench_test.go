package bench_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/workload"
)

// baseConfig is a small closed-loop run over the fake.
func baseConfig(f *benchtest.Fake) bench.Config {
	return bench.Config{
		Seed:       7,
		Keys:       workload.Keys{Count: 200, Size: 12, Distribution: "uniform"},
		ValueSizes: []int{64},
		Thresholds: []int{4096},
		Mix:        workload.Mix{Get: 0.5, Set: 0.4, Delete: 0.1},
		Measure:    workload.Phase{Ops: 2000},
		Load:       workload.Load{Mode: "closed", Connections: 2, Depth: 2},
		Dialer:     f,
		Codec:      bench.Values{},
	}
}

func run(t *testing.T, cfg bench.Config) *bench.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard
	defer cancel()
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Interrupted {
		t.Fatal("run hit the hang guard")
	}
	return rep
}

func slowOps(rep *bench.Report, op bench.Op, atLeast time.Duration) (slow, total int64) {
	for _, m := range rep.Measurements {
		if m.Op != op {
			continue
		}
		total += m.Count
		for _, b := range m.Hist.Distribution() {
			if b.From >= int64(atLeast) {
				slow += b.Count
			}
		}
	}
	return slow, total
}

// A target that stalls once for 200 ms: a closed loop records the stall as
// one slow operation (the workers simply wait, issuing nothing), while the
// open loop measures every operation that should have started during the
// stall from its intended start, so the tail shows the stall.
//
// The open loop's bounds hold on any machine, however loaded: a sleep
// lasts at least its duration, so they only count what the stall must
// cause. At 1000/s the stalled operation (intended at t) ends after
// t+200ms, and the 99 operations intended in (t, t+99ms] cannot start
// before that, so the open loop has at least 100 operations of >= 100ms.
// The closed loop runs on fake time (a synctest bubble, its phases timed
// on the bubble's clock), where the stall lasts exactly 200ms and every
// other operation no time at all, so exactly one operation is slow there;
// more would mean the stall was charged to operations that never waited
// for it.
//
// Both pacings are checked: they differ only in how a worker waits for an
// intended start, never in what the latency is measured from.
func TestCoordinatedOmission(t *testing.T) {
	const stall = 200 * time.Millisecond
	mk := func(mode, pacing string) bench.Config {
		f := &benchtest.Fake{StallAt: 300, Stall: stall}
		cfg := baseConfig(f)
		cfg.Mix = workload.Mix{Set: 1}
		cfg.Load = workload.Load{Mode: mode, Connections: 1, Depth: 1, Rate: 1000, Pacing: pacing}
		cfg.Measure = workload.Phase{Ops: 1000}
		return cfg
	}

	t.Run("closed", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			cfg := mk("closed", "")
			bench.SetClock(&cfg, bench.TickClock(1))
			closed := run(t, cfg)
			slow, total := slowOps(closed, bench.OpSet, 100*time.Millisecond)
			if h := closed.Measurements[0].Hist; total != 1000 || slow != 1 || !h.ValuesAreEquivalent(h.Max(), int64(stall)) {
				t.Errorf("%d of %d operations >= 100ms, the slowest %v; want exactly the one that stalled, %v: more means the stall was spread over operations issued after it",
					slow, total, time.Duration(h.Max()), stall)
			}
		})
	})

	for _, pacing := range []string{"", bench.PacingPrecise, bench.PacingCoarse} {
		open := run(t, mk("open", pacing))
		slow, total := slowOps(open, bench.OpSet, 100*time.Millisecond)
		if total != 1000 {
			t.Fatalf("open loop, pacing %q: %d operations, want 1000 (late operations must not be dropped)", pacing, total)
		}
		if slow < 100 {
			t.Errorf("open loop, pacing %q: only %d operations >= 100ms, want >= 100; the stall was omitted", pacing, slow)
		}
		want := pacing
		if want == "" {
			want = bench.PacingPrecise
		}
		if l := open.Measurements[0].Load; l.RateOps != 1000 || l.RampRatesOps != nil || l.Pacing != want {
			t.Errorf("open loop cell load %+v, want rate 1000, pacing %s", l, want)
		}
		h := open.Measurements[0].Hist
		if p := h.ValueAtQuantile(99.9); p < int64(100*time.Millisecond) {
			t.Errorf("open loop, pacing %q: p99.9 = %v, want >= 100ms", pacing, time.Duration(p))
		}
	}
}

func TestVerifyCatchesCorruption(t *testing.T) {
	f := &benchtest.Fake{Corrupt: true}
	cfg := baseConfig(f)
	cfg.Verify, cfg.Preload, cfg.FreshServer = true, true, true
	rep := run(t, cfg)
	if !rep.Verify.Failed() || rep.Verify.Mismatches == 0 {
		t.Fatalf("verify counts %+v: corruption not caught", rep.Verify)
	}
	var flagged int64
	for _, m := range rep.Measurements {
		flagged += m.Errors[bench.KindVerifyMismatch] + m.Errors[bench.KindTorn]
	}
	if flagged == 0 {
		t.Error("no cell counts verify_mismatch or torn")
	}
}

func TestVerifyCleanRunPasses(t *testing.T) {
	for _, size := range []int{8, 64, 1000} {
		for _, preload := range []bool{false, true} {
			f := &benchtest.Fake{}
			cfg := baseConfig(f)
			cfg.ValueSizes = []int{size, size * 2}
			cfg.Verify, cfg.Preload, cfg.FreshServer = true, preload, true
			cfg.Warmup = workload.Phase{Ops: 500}
			rep := run(t, cfg)
			if rep.Verify.Failed() || rep.Verify.Checked == 0 {
				t.Errorf("size %d preload %v: verify %+v, want checks and no failures", size, preload, rep.Verify)
			}
		}
	}
}

// Verify mode also catches a key that should exist but does not: here a
// fake that forgets every write.
func TestVerifyCatchesMissing(t *testing.T) {
	f := &benchtest.Fake{NoStore: true}
	cfg := baseConfig(f)
	cfg.Verify, cfg.FreshServer = true, true
	rep := run(t, cfg)
	if rep.Verify.Missing == 0 {
		t.Fatalf("verify %+v: lost writes not reported missing", rep.Verify)
	}
}

func sequences(t *testing.T, seed uint64, mode, pacing string) [][]benchtest.Rec {
	f := &benchtest.Fake{Record: true}
	cfg := baseConfig(f)
	cfg.Seed = seed
	cfg.Keys.Distribution = "zipfian"
	cfg.Keys.ZipfianConstant = 0.99
	cfg.Load = workload.Load{Mode: mode, Connections: 3, Depth: 1, Rate: 20000, Pacing: pacing}
	cfg.Warmup = workload.Phase{Ops: 300}
	cfg.Measure = workload.Phase{Ops: 900}
	cfg.ValueSizes = []int{16, 32}
	run(t, cfg)
	var out [][]benchtest.Rec
	for _, c := range f.Conns() {
		out = append(out, c.Ops())
	}
	return out
}

// Each connection's sequence of operations and keys is a function of the
// seed alone: the same in every run, whatever the timing, and in an open
// loop the same under either pacing, which changes only how a worker waits
// for its slots (slot n is always worker n mod W's).
func TestSameSeedSameOperations(t *testing.T) {
	var open [][]benchtest.Rec
	for _, c := range []struct{ mode, pacing string }{{"closed", ""}, {"open", bench.PacingPrecise}, {"open", bench.PacingCoarse}} {
		name := c.mode + "/" + c.pacing
		a, b := sequences(t, 42, c.mode, c.pacing), sequences(t, 42, c.mode, c.pacing)
		if len(a) != 3 || len(b) != 3 {
			t.Fatalf("%s: %d and %d connections, want 3", name, len(a), len(b))
		}
		for i := range a {
			if len(a[i]) != 2*(100+300) {
				t.Errorf("%s: connection %d did %d operations, want %d", name, i, len(a[i]), 2*(100+300))
			}
			if !equal(a[i], b[i]) {
				t.Errorf("%s: connection %d: same seed, different operations", name, i)
			}
		}
		d := sequences(t, 43, c.mode, c.pacing)
		if equal(a[0], d[0]) {
			t.Errorf("%s: seeds 42 and 43 gave the same operations", name)
		}
		if c.mode != "open" {
			continue
		}
		if open == nil {
			open = a
			continue
		}
		for i := range a {
			if !equal(a[i], open[i]) {
				t.Errorf("connection %d: precise and coarse pacing issued different operations for the same seed", i)
			}
		}
	}
}

func equal(a, b []benchtest.Rec) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Sequential keys are split between workers: together they set every key
// exactly once per lap rather than all walking the same keys in lockstep.
func TestSequentialPartitioned(t *testing.T) {
	f := &benchtest.Fake{Record: true}
	cfg := baseConfig(f)
	cfg.Keys.Distribution = "sequential"
	cfg.Mix = workload.Mix{Set: 1}
	cfg.Load = workload.Load{Mode: "closed", Connections: 2, Depth: 1}
	cfg.Measure = workload.Phase{Ops: int64(cfg.Keys.Count)}
	run(t, cfg)
	seen := map[string]int{}
	for _, c := range f.Conns() {
		for _, op := range c.Ops() {
			seen[op.Key]++
		}
	}
	if len(seen) != cfg.Keys.Count {
		t.Errorf("%d distinct keys in %d sets over %d keys, want each once", len(seen), cfg.Keys.Count, cfg.Keys.Count)
	}
}

// Failed operations are counted by kind in their cell, keep their latency
// in the histogram (Count includes them) and add no bytes to throughput.
func TestErrorsCountedByKind(t *testing.T) {
	for _, c := range []struct {
		err  error
		kind bench.ErrorKind
		name string
	}{
		{fmt.Errorf("op 7: %w", bench.ErrTimeout), bench.KindTimeout, "timeout"},
		{bench.ErrNoSpace, bench.KindNoSpace, "no_space"},
		{errors.New("connection reset by peer"), bench.KindOther, "other"},
	} {
		f := &benchtest.Fake{FailEvery: 10, FailErr: c.err}
		cfg := baseConfig(f)
		cfg.Mix = workload.Mix{Set: 1}
		rep := run(t, cfg)
		if len(rep.Measurements) != 1 {
			t.Fatalf("%d measurements, want one set cell", len(rep.Measurements))
		}
		m := rep.Measurements[0]
		if m.Count != 2000 || m.Errors[c.kind] != 200 || m.Errors[bench.KindNone] != 1800 {
			t.Errorf("%s: count %d, errors %v; want 200 of 2000 failed", c.name, m.Count, m.Errors)
		}
		cell, err := m.Cell()
		if err != nil {
			t.Fatal(err)
		}
		if len(cell.Errors) != 1 || cell.Errors[c.name] != 200 {
			t.Errorf("cell errors %v, want {%s: 200}", cell.Errors, c.name)
		}
		if want := 1800 * 64 / m.Duration.Seconds(); math.Abs(cell.ThroughputBytes-want) > want*1e-9 {
			t.Errorf("throughput %v B/s, want %v (successful sets only)", cell.ThroughputBytes, want)
		}
	}
}

// An open loop reports how late the harness itself issued operations it
// was free to issue on time, measured from their intended starts. A closed
// loop has no schedule and reports none.
//
// The open loop runs on fake time (a synctest bubble, its phases timed on
// bench.TickClock, one intended start a tick): there a fake that answers
// at once leaves the worker idle before every intended start but the
// first (due at once), however loaded the host, and it is woken exactly
// on time, so each of those operations has an issue delay of exactly 0.
func TestIssueDelay(t *testing.T) {
	for _, pacing := range []string{bench.PacingPrecise, bench.PacingCoarse} {
		t.Run(pacing, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { checkIssueDelay(t, pacing) })
		})
	}
	closed := run(t, baseConfig(&benchtest.Fake{}))
	for _, m := range closed.Measurements {
		if c, _ := m.Cell(); m.IssueDelay != nil || c.IssueDelay != nil {
			t.Error("closed loop reports an issue delay")
		}
	}
}

// checkIssueDelay runs 400 operations of an open loop under pacing, one
// intended start a tick, on fake time; it must be called in a bubble.
func checkIssueDelay(t *testing.T, pacing string) {
	cfg := baseConfig(&benchtest.Fake{})
	cfg.Mix = workload.Mix{Set: 1}
	rate := float64(time.Second / bench.Tick)
	cfg.Load = workload.Load{Mode: "open", Connections: 1, Depth: 1, Rate: rate, Pacing: pacing}
	cfg.Measure = workload.Phase{Ops: 400}
	bench.SetClock(&cfg, bench.TickClock(bench.Tick))
	m := run(t, cfg).Measurements[0]
	var n, late int64
	if d := m.IssueDelay; d != nil {
		n, late = d.TotalCount(), d.Max()
	}
	if m.Count != 400 || n != m.Count-1 || late != 0 {
		t.Fatalf("%s: %d issue delays, the longest %v, for %d operations: want one of 0 for each but the first", pacing, n, time.Duration(late), m.Count)
	}
	c, err := m.Cell()
	if err != nil {
		t.Fatal(err)
	}
	if c.IssueDelay == nil || c.IssueDelay.Max != 0 || c.Load.Pacing != pacing {
		t.Errorf("%s: cell issue delay %+v, load %+v", pacing, c.IssueDelay, c.Load)
	}
}

func TestCountsAddUp(t *testing.T) {
	f := &benchtest.Fake{}
	cfg := baseConfig(f)
	cfg.ValueSizes = []int{16, 8000}
	cfg.Thresholds = []int{1024, 65536}
	rep := run(t, cfg)
	per := map[[2]int]int64{}
	protos := map[[2]int]map[bench.Protocol]bool{}
	for _, m := range rep.Measurements {
		if m.Hist.TotalCount() != m.Count {
			t.Errorf("%+v: histogram holds %d, count %d", m.Op, m.Hist.TotalCount(), m.Count)
		}
		var ivl int64
		hs, err := bench.DecodeIntervals(m.Intervals)
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			ivl += h.TotalCount()
		}
		if ivl != m.Count {
			t.Errorf("intervals hold %d, count %d", ivl, m.Count)
		}
		k := [2]int{m.Threshold, m.ValueSize}
		per[k] += m.Count
		if protos[k] == nil {
			protos[k] = map[bench.Protocol]bool{}
		}
		if m.Op == bench.OpSet {
			protos[k][m.Protocol] = true
		}
	}
	if len(per) != 4 {
		t.Fatalf("%d cells, want 4", len(per))
	}
	for k, n := range per {
		if n != 2000 {
			t.Errorf("cell %v: %d operations, want 2000", k, n)
		}
	}
	if !protos[[2]int{1024, 8000}][bench.Rendezvous] || !protos[[2]int{65536, 8000}][bench.Eager] {
		t.Errorf("sets not split by protocol as the threshold says: %v", protos)
	}
	for _, c := range f.Conns() {
		if !c.Closed() {
			t.Error("connection left open")
		}
	}
}

func TestInterrupt(t *testing.T) {
	f := &benchtest.Fake{Latency: time.Millisecond}
	cfg := baseConfig(f)
	cfg.Measure = workload.Phase{Duration: workload.Duration(time.Hour)}
	ctx, cancel := context.WithCancel(context.Background())
	cfg.Observer = bench.ObserverFunc(func(s bench.Status) {
		if s.Phase == "measure" && s.Ops > 20 {
			cancel()
		}
	})
	cfg.Tick = 10 * time.Millisecond
	done := make(chan struct{})
	var rep *bench.Report
	var err error
	go func() {
		rep, err = bench.Run(ctx, cfg)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("run did not stop on cancel")
	}
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || len(rep.Measurements) == 0 || rep.Measurements[0].Count == 0 {
		t.Fatalf("interrupted=%v measurements=%d: want the partial measure phase kept", rep.Interrupted, len(rep.Measurements))
	}
}

func TestOpenLoopRamp(t *testing.T) {
	f := &benchtest.Fake{}
	cfg := baseConfig(f)
	cfg.Load = workload.Load{Mode: "open", Connections: 2, Depth: 1,
		Ramp: &workload.Ramp{Start: 100, End: 200, Step: 100, StepDuration: workload.Duration(200 * time.Millisecond)}}
	cfg.Measure = workload.Phase{}
	rep := run(t, cfg)
	var n int64
	for _, m := range rep.Measurements {
		n += m.Count
		l := m.Load
		if l.Mode != "open" || l.RateOps != 0 || !slices.Equal(l.RampRatesOps, []float64{100, 200}) || l.RampStepNs != int64(200*time.Millisecond) {
			t.Errorf("cell load %+v, want the ramp's rates 100, 200 for 200ms each", l)
		}
	}
	if n != 20+40 {
		t.Errorf("%d operations, want 60 (100/s and 200/s for 200ms each)", n)
	}
}

func TestFromWorkload(t *testing.T) {
	w, err := workload.LoadFile("../../workloads/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := bench.FromWorkload(w)
	if len(c.ValueSizes) != 3 || c.ValueSizes[1] != 4096 || len(c.Thresholds) != 1 || c.Thresholds[0] != 4096 || c.Seed != w.Seed {
		t.Errorf("config %+v", c)
	}
	c.Dialer, c.Codec = &benchtest.Fake{}, bench.Values{}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}
