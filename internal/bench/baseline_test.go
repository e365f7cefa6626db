package bench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/store/memcached"
	"github.com/kvbench/kvbench/internal/store/redis"
	"github.com/kvbench/kvbench/internal/testutil"
	"github.com/kvbench/kvbench/internal/workload"
)

// baselineWorkload is a verified mix of every op, pipelined (depth 2) on
// two connections, with thresholds a baseline ignores.
const baselineWorkload = `
name: baseline
seed: 11
target: {kind: %s, server: %q, transport: auto%s}
keys: {count: 64, size: 16}
values: {sizes: [64B, 100KiB]}
thresholds: [1KiB, 4KiB]
mix: {get: 0.6, set: 0.3, delete: 0.1}
phases: {warmup: {ops: 100}, measure: {ops: 1500}}
load: {connections: 2, depth: 2}
verify: true
`

// runBaseline runs baselineWorkload against a server and records it.
func runBaseline(t *testing.T, kind, addr, extra string) (*bench.Report, *results.Run, []results.CellLog) {
	t.Helper()
	w, err := workload.Parse("baseline.yaml", []byte(fmt.Sprintf(baselineWorkload, kind, addr, extra)))
	if err != nil {
		t.Fatal(err)
	}
	h, err := bench.OpenHarness(bench.HarnessConfig{Workload: w})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	cfg := bench.FromWorkload(w)
	cfg.Codec, cfg.Dialer, cfg.ServerCPU = bench.Values{}, h.Dialer(), h.ServerCPU()
	if err := h.Check(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	rep, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	run, cells, err := h.Record(w, w.Seed, rep, nil, "v-test", "abc")
	if err != nil {
		t.Fatal(err)
	}
	return rep, run, cells
}

// Redis and memcached run the same verified workload as rdmakv: every get
// checked against what the run wrote, no failures, every measured op in
// an eager cell of the store with no threshold, its interval log named
// after the store, the server's version and CPU recorded.
func TestBaselinesRunVerifiedWorkloads(t *testing.T) {
	for _, tc := range []struct{ kind, addr string }{
		{redis.Kind, testutil.Redis(t)},
		{memcached.Kind, testutil.Memcached(t)},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			rep, run, cells := runBaseline(t, tc.kind, tc.addr, "")
			if v := rep.Verify; v.Checked == 0 || v.Failed() {
				t.Errorf("verify %+v", v)
			}
			if run.TargetKind() != tc.kind || run.Target.ServerVersion == "" || run.Protocol != 0 || run.Transport.Name != "tcp" || run.Transport.Server != tc.addr || run.Transport.Embedded {
				t.Errorf("target %+v, transport %+v", run.Target, run.Transport)
			}
			if len(cells) != 2*3 {
				t.Fatalf("%d cells, want 2 sizes x 3 ops", len(cells))
			}
			perSize := map[int]int64{}
			for _, c := range cells {
				cell := c.Cell
				if cell.Store != tc.kind || cell.Protocol != "eager" || cell.Threshold != 0 || cell.Hlog != "hlog/"+tc.kind+"-t0-v"+fmt.Sprint(cell.ValueSize)+"-"+cell.Op+"-eager.hlog" {
					t.Errorf("cell %s: store %q protocol %q threshold %d hlog %q", cell.Name(), cell.Store, cell.Protocol, cell.Threshold, cell.Hlog)
				}
				if want := tc.kind + " " + cell.Op + "/"; !strings.HasPrefix(cell.Name(), want) || !strings.HasSuffix(cell.Name(), "/t=0B/eager") {
					t.Errorf("cell named %q", cell.Name())
				}
				if f := cell.Failures(); f != 0 {
					t.Errorf("cell %s/%d: %d failures %v", cell.Op, cell.ValueSize, f, cell.Errors)
				}
				if cell.CPU == nil || cell.CPU.Server == nil {
					t.Errorf("cell %s/%d: no server CPU", cell.Op, cell.ValueSize)
				}
				perSize[cell.ValueSize] += cell.Count
			}
			for size, n := range perSize {
				if n != 1500 {
					t.Errorf("%d B: %d ops measured, want the phase's 1500", size, n)
				}
			}
		})
	}
}

// With fewer connections than Ps the baselines' sockets block, with as
// many they wait under the poller: either way the verified workload runs
// clean, pipelined (rueidis) and pooled (gomemcache), and results.json
// says which.
func TestBaselinesClientSockets(t *testing.T) {
	servers := map[string]string{redis.Kind: testutil.Redis(t), memcached.Kind: testutil.Memcached(t)}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		procs int // baselineWorkload has 2 connections
		want  string
	}{{3, results.SocketsBlocking}, {2, results.SocketsPoller}} {
		runtime.GOMAXPROCS(tc.procs)
		for kind, addr := range servers {
			rep, run, _ := runBaseline(t, kind, addr, "")
			if v := rep.Verify; v.Checked == 0 || v.Failed() {
				t.Errorf("%s on %d Ps: verify %+v", kind, tc.procs, v)
			}
			if got := run.Transport.ClientSockets; got != tc.want {
				t.Errorf("%s on %d Ps: client_sockets %q, want %q", kind, tc.procs, got, tc.want)
			}
		}
	}
}

// A Redis server with a password takes the one in target.auth_file and
// refuses a run without it, saying why.
func TestRedisPassword(t *testing.T) {
	addr := testutil.Redis(t, "--requirepass", "s3cret-pw")
	file := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(file, []byte("s3cret-pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if rep, _, _ := runBaseline(t, redis.Kind, addr, fmt.Sprintf(", auth_file: %q", file)); rep.Verify.Failed() {
		t.Errorf("verify %+v", rep.Verify)
	}
	w, err := workload.Parse("baseline.yaml", []byte(fmt.Sprintf(baselineWorkload, redis.Kind, addr, "")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = bench.OpenHarness(bench.HarnessConfig{Workload: w})
	if err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Errorf("without the password: %v", err)
	}
}

// Redis and memcached replay a trace too, in one cell whatever the
// thresholds: every request, and with preload the trace's hits and
// misses.
func TestBaselinesReplayTraces(t *testing.T) {
	before := map[string]int{"k1": 500, "k2": 70, "k3": 9000}
	text, reqs := testTrace(7, 1, 400, 1, before)
	var misses int64
	for _, q := range reqs {
		if q.op == bench.OpGet && q.size == 0 {
			misses++
		}
	}
	for _, tc := range []struct{ kind, addr string }{
		{redis.Kind, testutil.Redis(t)},
		{memcached.Kind, testutil.Memcached(t)},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			cfg, w := replayRun(t, text, "speed: max", fmt.Sprintf("target: {kind: %s, server: %q}\nthresholds: [1KiB, 4KiB]\n", tc.kind, tc.addr))
			h, err := bench.OpenHarness(bench.HarnessConfig{Workload: w})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			cfg.Dialer = h.Dialer()
			rep := run(t, cfg)
			var n, notFound, recorded int64
			for _, m := range rep.Measurements {
				n += m.Count
				if m.Threshold != 0 || m.Protocol != bench.Eager {
					t.Errorf("%v cell at threshold %d, %v", m.Op, m.Threshold, m.Protocol)
				}
				if m.Op == bench.OpGet {
					notFound += m.Errors[bench.KindNotFound]
					recorded += m.RecordedMisses
				}
			}
			if n != int64(len(reqs)) || notFound != misses || recorded != misses {
				t.Errorf("%d requests, %d gets missed (the run says %d recorded); the trace has %d requests and %d misses",
					n, notFound, recorded, len(reqs), misses)
			}
		})
	}
}
