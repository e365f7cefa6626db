package bench_test

import (
	"bytes"
	"context"
	"log/slog"
	"runtime"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/report"
	"github.com/kvbench/kvbench/internal/results"
	rdmakvstore "github.com/kvbench/kvbench/internal/store/rdmakv"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv/wire"
)

const harnessWorkload = `
name: harness
seed: 5
target: {transport: auto}
keys: {count: 16, size: 8}
values: {sizes: [64B, 8KiB]}
thresholds: [4KiB]
mix: {get: 1}
preload: true
phases: {measure: {ops: 200}}
load: {mode: closed, connections: 2, depth: 2}
verify: true
`

// A harness on an embedded server over auto: rdmakv settles the transport
// (tcp here) and says so once, and Record describes what was measured
// against, down to each side's polling mode and the server's limits.
func TestHarnessRecordsTheLink(t *testing.T) {
	w, err := workload.Parse("harness.yaml", []byte(harnessWorkload))
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	h, err := bench.OpenHarness(bench.HarnessConfig{Workload: w, MaxValue: 8192, MaxThreshold: 4096,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	st, ok := h.Store.(*rdmakvstore.Store)
	if !ok || h.Kind() != "rdmakv" || !h.Embedded() || h.Transport() != "tcp" {
		t.Fatalf("store %T %q, embedded %v, transport %q", h.Store, h.Kind(), h.Embedded(), h.Transport())
	}
	if got := st.Dialer.StagingSize; got != 1<<20 {
		t.Errorf("staging %d, want the 1 MiB floor", got)
	}
	if h.ServerCPU() != nil {
		t.Error("an embedded server's CPU is the process's, yet the harness asks it")
	}
	cfg := bench.FromWorkload(w)
	cfg.Codec, cfg.Dialer, cfg.FreshServer = bench.Values{}, h.Dialer(), true
	rep, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	run, cells, err := h.Record(w, w.Seed, rep, nil, "v-test", "abc")
	if err != nil {
		t.Fatal(err)
	}
	tr := run.Transport
	if tr.Name != "tcp" || !tr.Embedded || tr.ClientPoll != "event" || tr.ServerPoll != "event" || tr.Limits == nil || tr.Limits.MaxEager < 4096 {
		t.Errorf("transport section %+v", tr)
	}
	sockets := results.SocketsPoller
	if w.Load.Connections < runtime.GOMAXPROCS(0) {
		sockets = results.SocketsBlocking
	}
	if tr.ClientSockets != sockets || st.Dialer.Blocking != (sockets == results.SocketsBlocking) {
		t.Errorf("%d connections on %d Ps: client_sockets %q, dialer blocking %v; want %q",
			w.Load.Connections, runtime.GOMAXPROCS(0), tr.ClientSockets, st.Dialer.Blocking, sockets)
	}
	if run.TargetKind() != "rdmakv" || run.Protocol != wire.ProtocolVersion {
		t.Errorf("target %+v, protocol %d", run.Target, run.Protocol)
	}
	for _, c := range cells {
		if c.Cell.Store != "rdmakv" || c.Cell.Hlog != results.HlogName(results.Cell{Threshold: c.Cell.Threshold, ValueSize: c.Cell.ValueSize, Op: c.Cell.Op, Protocol: c.Cell.Protocol}) {
			t.Errorf("cell %s: store %q, hlog %q", c.Cell.Name(), c.Cell.Store, c.Cell.Hlog)
		}
	}
	if run.EndReason != results.EndCompleted || run.Version != "v-test" || len(cells) != len(rep.Measurements) || len(cells) == 0 {
		t.Errorf("run %q %q with %d cells for %d measurements", run.EndReason, run.Version, len(cells), len(rep.Measurements))
	}
	if n := strings.Count(logs.String(), "transport auto: using tcp"); n != 1 {
		t.Errorf("the choice said %d times:\n%s", n, logs.String())
	}
	dir, err := results.WriteRun(t.TempDir(), w.Name, run, cells, report.WriteSummary)
	if err != nil {
		t.Fatal(err)
	}
	if back, err := results.Load(dir); err != nil || len(back.Cells) != len(cells) {
		t.Errorf("reloaded: %v", err)
	}
}
