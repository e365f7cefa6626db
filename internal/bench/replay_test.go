package bench_test

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

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/results"
	rdmakvstore "github.com/kvbench/kvbench/internal/store/rdmakv"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// traceReq is one request of a test trace, as the replay sends it.
type traceReq struct {
	op     bench.Op
	key    string
	size   int
	client int
}

// testTrace is a Twitter-format trace of perSecond requests a second for
// seconds, over keys k0..k49 and clients, consistent with itself: a get
// records the size its key holds then (0: a miss), given that the keys
// in before exist, at their sizes, before the trace starts.
func testTrace(seed uint64, seconds, perSecond, clients int, before map[string]int) (string, []traceReq) {
	rng := rand.New(rand.NewPCG(seed, 1))
	held := map[string]int{}
	for k, s := range before {
		held[k] = s
	}
	sizes := []int{10, 100, 700, 3000, 20000}
	var b strings.Builder
	var reqs []traceReq
	for sec := range seconds {
		for range perSecond {
			q := traceReq{key: fmt.Sprintf("k%d", rng.IntN(50)), client: rng.IntN(clients)}
			op := "get"
			switch u := rng.Float64(); {
			case u < 0.6:
				q.op, q.size = bench.OpGet, held[q.key]
			case u < 0.9:
				q.op, q.size, op = bench.OpSet, sizes[rng.IntN(len(sizes))], "set"
				held[q.key] = q.size
			default:
				q.op, op = bench.OpDelete, "delete"
				delete(held, q.key)
			}
			reqs = append(reqs, q)
			fmt.Fprintf(&b, "%d,%s,%d,%d,%d,%s,0\n", sec, q.key, len(q.key), q.size, q.client, op)
		}
	}
	return b.String(), reqs
}

// replayRun writes trace and a workload replaying it with section (the
// trace section's fields after file) and more (further top-level
// YAML), and returns the planned run and the workload.
func replayRun(t *testing.T, trace, section, more string) (bench.Config, *workload.Workload) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.csv"), []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	yaml := fmt.Sprintf("trace: {file: t.csv, %s}\nkeys: {count: 100, size: 64}\n%s", section, more)
	path := filepath.Join(dir, "replay.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := workload.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg := bench.FromWorkload(w)
	if err := bench.ScanTrace(&cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Codec = bench.Values{}
	return cfg, w
}

// onEmbedded points cfg at a fresh embedded rdmakv server over tcp.
func onEmbedded(t *testing.T, cfg *bench.Config) {
	t.Helper()
	emb, err := rdmakvstore.StartEmbedded(rdmakvstore.EmbeddedConfig{
		Transport: "tcp", Keys: 100, KeySize: cfg.Keys.Size, MaxValue: 20000, MaxThreshold: 4096, Workers: cfg.Workers(),
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { emb.Close() })
	cfg.Dialer = &rdmakvstore.Dialer{Addr: emb.Addr(), Transport: "tcp", Timeout: 10 * time.Second, Depth: cfg.Load.Depth}
	cfg.FreshServer = true
}

// A replay issues the trace's requests, no more and no fewer: each op's
// count and each set's recorded size (by size class) as the trace has
// them; and paced, it records its issue delays under its pacing (precise
// unless the workload says coarse). How long it lasts is
// TestReplayLastsTheSpan's, on fake time.
func TestReplayReproducesTheTrace(t *testing.T) {
	const perSecond = 50
	for _, c := range []struct {
		speed, pacing string
		seconds       int
	}{{"1", "", 2}, {"10", "", 12}, {"10", bench.PacingCoarse, 12}} {
		speed, pacing := c.speed, c.pacing
		text, reqs := testTrace(1, c.seconds, perSecond, 8, nil)
		load := "load: {connections: 3, depth: 2}\n"
		if pacing != "" {
			load = "load: {connections: 3, depth: 2, pacing: " + pacing + "}\n"
		} else {
			pacing = bench.PacingPrecise
		}
		t.Run("speed "+speed+" "+pacing, func(t *testing.T) {
			cfg, _ := replayRun(t, text, "speed: "+speed, "thresholds: [1KiB]\n"+load)
			onEmbedded(t, &cfg)
			rep := run(t, cfg)
			wantOps, wantSets := map[bench.Op]int64{}, map[int64]int64{}
			for _, q := range reqs {
				wantOps[q.op]++
				if q.op == bench.OpSet {
					wantSets[results.ClassOf(q.size)]++
				}
			}
			gotOps, gotSets := map[bench.Op]int64{}, map[int64]int64{}
			for _, m := range rep.Measurements {
				gotOps[m.Op] += m.Count
				c, err := m.Cell()
				if err != nil {
					t.Fatal(err)
				}
				if m.Op == bench.OpSet {
					for _, k := range c.SizeClasses {
						gotSets[k.Class] += k.Count
					}
				}
				if c.Trace == nil || c.Trace.Speed != speed || c.Distribution == "" {
					t.Errorf("cell %s/%s: trace %+v, distribution %q", c.Op, c.Protocol, c.Trace, c.Distribution)
				}
				if c.Load.Mode != "open" || c.Load.Pacing != pacing || c.IssueDelay == nil || m.IssueDelay.TotalCount() == 0 {
					t.Errorf("cell %s/%s: load %+v, issue delay %+v", c.Op, c.Protocol, c.Load, c.IssueDelay)
				}
			}
			if fmt.Sprint(gotOps) != fmt.Sprint(wantOps) || fmt.Sprint(gotSets) != fmt.Sprint(wantSets) {
				t.Errorf("ops %v, sets by class %v; the trace has %v and %v", gotOps, gotSets, wantOps, wantSets)
			}
		})
	}
}

// A paced replay lasts the trace's span divided by the speed, within 5%,
// at speed 1 and 10 under either pacing: on fake time (a synctest
// bubble, phases timed on bench.TickClock) with a fake that answers at
// once, so that the replay's own schedule is measured and not the host.
func TestReplayLastsTheSpan(t *testing.T) {
	const seconds, perSecond = 4, 50
	// The i-th of a second's n requests is at i/n s: the last at
	// seconds - 1/n.
	span := time.Duration(seconds)*time.Second - time.Second/perSecond
	for _, speed := range []float64{1, 10} {
		for _, pacing := range []string{bench.PacingPrecise, bench.PacingCoarse} {
			t.Run(fmt.Sprintf("speed %g %s", speed, pacing), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					text, _ := testTrace(3, seconds, perSecond, 4, nil)
					cfg, _ := replayRun(t, text, fmt.Sprintf("speed: %g", speed), "preload: false\nload: {connections: 2, depth: 2, pacing: "+pacing+"}\n")
					cfg.Dialer = &benchtest.Fake{}
					bench.SetClock(&cfg, bench.TickClock(bench.Tick))
					want := time.Duration(float64(span) / speed)
					if d := run(t, cfg).Measurements[0].Duration; d < want*95/100 || d > want*105/100 {
						t.Errorf("measure phase lasted %v, want %v within 5%%", d, want)
					}
				})
			})
		}
	}
}

// A paced replay reports how late the harness issued the requests it was
// free to issue on time. On fake time (a synctest bubble, its phases
// timed on bench.TickClock), with a fake that answers at once and
// requests ten ticks apart, every request but the first (due at once)
// waits for its recorded time and goes exactly on it, under either
// pacing.
func TestReplayIssueDelay(t *testing.T) {
	for _, pacing := range []string{bench.PacingPrecise, bench.PacingCoarse} {
		t.Run(pacing, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				text, reqs := testTrace(9, 2, 50, 4, nil)
				cfg, _ := replayRun(t, text, "speed: 1", "preload: false\nload: {connections: 2, depth: 2, pacing: "+pacing+"}\n")
				cfg.Dialer = &benchtest.Fake{}
				bench.SetClock(&cfg, bench.TickClock(bench.Tick))
				m := run(t, cfg).Measurements[0]
				var n, late int64
				if d := m.IssueDelay; d != nil {
					n, late = d.TotalCount(), d.Max()
				}
				if n != int64(len(reqs))-1 || late != 0 || m.Load.Pacing != pacing {
					t.Errorf("%d issue delays, the longest %v, pacing %q, for %d requests: want one of 0 for each but the first, pacing %q",
						n, time.Duration(late), m.Load.Pacing, len(reqs), pacing)
				}
			})
		})
	}
}

// Each connection carries the requests of its clients (client mod
// connections), in the trace's order.
func TestReplayKeepsClientsOnTheirConnection(t *testing.T) {
	text, reqs := testTrace(2, 3, 200, 7, nil)
	cfg, _ := replayRun(t, text, "speed: max", "load: {connections: 3, depth: 1}\npreload: false\n")
	f := &benchtest.Fake{Record: true}
	cfg.Dialer = f
	run(t, cfg)
	conns := f.Conns()
	if len(conns) != 3 {
		t.Fatalf("%d connections, want 3", len(conns))
	}
	for i, c := range conns {
		var want []benchtest.Rec
		for _, q := range reqs {
			if q.client%3 == i {
				want = append(want, benchtest.Rec{Op: q.op, Key: q.key})
			}
		}
		if got := c.Ops(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("connection %d: %d requests, want its clients' %d in trace order", i, len(got), len(want))
		}
	}
}

// With preload, the gets the trace recorded as hits hit and those it
// recorded as misses miss, in every cell, though the cells before wrote
// to the same server.
func TestReplayPreloadFollowsTheTrace(t *testing.T) {
	before := map[string]int{}
	for i := range 25 {
		before[fmt.Sprintf("k%d", i*2)] = 100 + i
	}
	text, reqs := testTrace(3, 1, 500, 1, before)
	var misses int64
	for _, q := range reqs {
		if q.op == bench.OpGet && q.size == 0 {
			misses++
		}
	}
	cfg, _ := replayRun(t, text, "speed: max", "thresholds: [256B, 4KiB]\n")
	onEmbedded(t, &cfg)
	rep := run(t, cfg)
	for _, th := range cfg.Thresholds {
		var notFound, recorded, hits int64
		for _, m := range rep.Measurements {
			if m.Op == bench.OpGet && m.Threshold == th {
				notFound += m.Errors[bench.KindNotFound]
				recorded += m.RecordedMisses
				hits += m.Errors[bench.KindNone]
			}
		}
		if notFound != misses || recorded != misses || hits == 0 {
			t.Errorf("threshold %d: %d gets missed and %d hit; the trace recorded %d misses, the run says %d", th, notFound, hits, misses, recorded)
		}
	}
}

// A malformed line past the lines checked before measuring ends the run
// there: the error names its file and line, and what was measured stays.
func TestReplayBadLineMidRun(t *testing.T) {
	text, _ := testTrace(4, 1, bench.ScanLines+500, 4, nil)
	bad := bench.ScanLines + 200
	lines := strings.SplitAfter(text, "\n")
	lines[bad-1] = "0,kx,2,10,1,frobnicate,0\n"
	cfg, _ := replayRun(t, strings.Join(lines, ""), "speed: max", "preload: false\n")
	cfg.Dialer = &benchtest.Fake{}
	rep, err := bench.Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("t.csv:%d:", bad)) || !strings.Contains(err.Error(), "frobnicate") {
		t.Fatalf("error %v, want one naming t.csv:%d", err, bad)
	}
	var n int64
	for _, m := range rep.Measurements {
		n += m.Count
	}
	if n < bench.ScanLines {
		t.Errorf("%d requests measured before the bad line, want at least %d", n, bench.ScanLines)
	}
}

// A malformed line among the first ScanLines fails the run before it
// measures, naming the line.
func TestReplayBadLineBeforeMeasuring(t *testing.T) {
	text, _ := testTrace(5, 1, 100, 1, nil)
	lines := strings.SplitAfter(text, "\n")
	lines[41] = "0,kx,2,ten,1,get,0\n"
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte(strings.Join(lines, "")), 0o644)
	os.WriteFile(filepath.Join(dir, "w.yaml"), []byte("trace: {file: t.csv}\n"), 0o644)
	w, err := workload.LoadFile(filepath.Join(dir, "w.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := bench.FromWorkload(w)
	if err := bench.ScanTrace(&cfg); err == nil || !strings.Contains(err.Error(), "t.csv:42:") {
		t.Errorf("scan: %v, want the problem at t.csv:42", err)
	}
}

// countOps is the operations rep measured.
func countOps(rep *bench.Report) (n int64) {
	for _, m := range rep.Measurements {
		n += m.Count
	}
	return n
}

// A warmup takes the window's first requests and the measure phase the
// rest; with loop the window comes round again until the measure phase
// ends, by its ops or its time.
func TestReplayWarmupAndLoop(t *testing.T) {
	text, reqs := testTrace(6, 1, 1000, 4, nil)
	n := int64(len(reqs))
	for _, c := range []struct {
		name, section, more string
		want                func(int64) bool
	}{
		{"warmup", "speed: max", "phases: {warmup: {ops: 300}}\n", func(got int64) bool { return got == n-300 }},
		{"window", "speed: max, skip: 100, ops: 500", "", func(got int64) bool { return got == 500 }},
		{"loop by ops", "speed: max, loop: true", "phases: {measure: {ops: 2500}}\n", func(got int64) bool { return got == 2500 }},
		{"loop by time", "speed: 10, loop: true", "phases: {measure: {duration: 350ms}}\n", func(got int64) bool { return got > 3*n && got < 4*n }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, _ := replayRun(t, text, c.section, "preload: false\nload: {connections: 2, depth: 2}\n"+c.more)
			cfg.Dialer = &benchtest.Fake{}
			if got := countOps(run(t, cfg)); !c.want(got) {
				t.Errorf("measured %d requests of a %d-request window", got, n)
			}
		})
	}
}

// The largest value of the lines checked before measuring is the run's
// largest: a server that takes less refuses the run, naming the size, as
// it would a fixed one.
func TestReplayValueAboveTheServersMax(t *testing.T) {
	text, _ := testTrace(8, 1, 200, 1, nil)
	cfg, _ := replayRun(t, text, "speed: max", "")
	if cfg.MaxValueSize() != 20000 {
		t.Fatalf("largest value %d, want the trace's 20000", cfg.MaxValueSize())
	}
	err := rdmakvstore.CheckLimits(cfg.Cells(), rdmakv.Limits{MaxEager: 1 << 20, MaxKey: 256, MaxValue: 4096, PoolSize: 1 << 30})
	if err == nil || !strings.Contains(err.Error(), "value size 19.53KiB is above the server's max value 4KiB") {
		t.Errorf("check: %v", err)
	}
}
