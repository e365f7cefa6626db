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
	"github.com/kvbench/kvbench/internal/workload"
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
	if h.Embedded == nil || h.Transport() != "tcp" {
		t.Fatalf("embedded %v, transport %q", h.Embedded != nil, h.Transport())
	}
	if got := h.Rdmakv.StagingSize; got != 1<<20 {
		t.Errorf("staging %d, want the 1 MiB floor", got)
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
	if tr.ClientSockets != sockets || h.Rdmakv.Blocking != (sockets == results.SocketsBlocking) {
		t.Errorf("%d connections on %d Ps: client_sockets %q, dialer blocking %v; want %q",
			w.Load.Connections, runtime.GOMAXPROCS(0), tr.ClientSockets, h.Rdmakv.Blocking, sockets)
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
