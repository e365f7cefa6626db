package bench_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	rdmakvstore "github.com/kvbench/kvbench/internal/store/rdmakv"
	"github.com/kvbench/kvbench/internal/workload"
	_ "github.com/kvbench/kvbench/rdmakv/tcp"
)

// TestRdmakvEmbedded runs every op of both protocols against rdmakv's
// embedded server over TCP with verify and phases on: values check out, and every
// cell has the phases of its protocol, one per operation.
func TestRdmakvEmbedded(t *testing.T) {
	var notice bytes.Buffer
	emb, err := rdmakvstore.StartEmbedded(rdmakvstore.EmbeddedConfig{
		Transport: "auto", Keys: 64, KeySize: 12, MaxValue: 20000, MaxThreshold: 8192, Workers: 4,
		Logger: slog.New(slog.NewTextHandler(&notice, nil)),
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	if emb.Info().Transport != "tcp" || !strings.Contains(notice.String(), "using tcp") {
		t.Errorf("auto without a device: transport %q, notice %q", emb.Info().Transport, notice.String())
	}
	d := &rdmakvstore.Dialer{Addr: emb.Addr(), Transport: emb.Info().Transport, Timeout: 10 * time.Second, Depth: 2, OpPhases: true}
	cfg := bench.Config{
		Seed: 3, Keys: workload.Keys{Count: 64, Size: 12, Distribution: "uniform"},
		ValueSizes: []int{100, 20000}, Thresholds: []int{8192},
		Mix: workload.Mix{Get: 0.6, Set: 0.3, Delete: 0.1}, Preload: true,
		Measure: workload.Phase{Ops: 400}, Load: workload.Load{Mode: "closed", Connections: 2, Depth: 2},
		Verify: true, FreshServer: true, Dialer: d, Codec: bench.Values{}, OpPhases: true,
	}
	rep := run(t, cfg)
	if rep.Verify.Failed() || rep.Verify.Checked == 0 {
		t.Errorf("verify %+v", rep.Verify)
	}
	seen := map[string]bool{}
	for _, m := range rep.Measurements {
		seen[m.Op.String()+"/"+m.Protocol.String()+"/"+map[bool]string{true: "small", false: "large"}[m.ValueSize == 100]] = true
		for k, n := range m.Errors {
			if k != int(bench.KindNone) && k != int(bench.KindNotFound) && n != 0 {
				t.Errorf("%v %v size %d: %d %v errors", m.Op, m.Protocol, m.ValueSize, n, bench.ErrorKind(k))
			}
		}
		c, err := m.Cell()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"client", "network", "server"}
		switch {
		case m.Protocol == bench.Eager:
		case m.Op == bench.OpGet:
			want = append(want, "read", "release")
		case m.Op == bench.OpSet:
			want = append(want, "write", "commit")
		}
		checkPhaseSet(t, c, want)
	}
	for _, want := range []string{"set/eager/small", "get/eager/small", "set/rendezvous/large", "get/rendezvous/large"} {
		if !seen[want] {
			t.Errorf("no %s cell; have %v", want, seen)
		}
	}
	if info, limits, ok := d.Info(); !ok || info.Transport != "tcp" || limits.MaxValue < 20000 {
		t.Errorf("dialer info %+v %+v %v", info, limits, ok)
	}
}
