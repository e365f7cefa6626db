package bench_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/hwcounters"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

func hasKind(ws []results.Warning, kind string) bool {
	return slices.ContainsFunc(ws, func(w results.Warning) bool { return w.Kind == kind })
}

// Each cell records what the counters grew by between the hook's two
// readings around its measure phase: reading k says send_rnr_err k² and
// sent_pkts 10k, so cell i's phase (readings 2i and 2i+1) grew by 4i+1
// and 10, which ties each cell to its own pair. The hook is not called
// around a warmup, it is called with no operation of the phase begun or
// left, and outside the CPU readings. Each cell that saw RNR NAKs warns.
func TestDeviceCountersHook(t *testing.T) {
	d := &countingDialer{f: &benchtest.Fake{}}
	cfg := baseConfig(d.f)
	cfg.Dialer, cfg.ValueSizes = d, []int{64, 128, 256}
	cfg.Warmup = workload.Phase{Ops: 300}
	var calls []int64 // operations done at each reading
	var order []string
	cfg.ServerCPU = func(context.Context) (time.Duration, time.Duration, error) {
		order = append(order, "cpu")
		return 0, 0, nil
	}
	cfg.DeviceCounters = func() (hwcounters.Counters, error) {
		k := uint64(len(calls))
		calls = append(calls, d.done.Load())
		order = append(order, "hw")
		return hwcounters.Counters{"send_rnr_err": k * k, "sent_pkts": 10 * k}, nil
	}
	rep := run(t, cfg)
	if len(calls) != 2*len(cfg.ValueSizes) {
		t.Fatalf("%d readings, want 2 per measure phase (%d)", len(calls), 2*len(cfg.ValueSizes))
	}
	if want := strings.Repeat("hw cpu cpu hw ", len(cfg.ValueSizes)); strings.Join(order, " ")+" " != want {
		t.Errorf("readings in the order %v, want the counters around the CPU clocks", order)
	}
	for i, size := range cfg.ValueSizes {
		if ops := phaseOps(rep, 4096, size); calls[2*i+1]-calls[2*i] != ops {
			t.Errorf("cell %d: %d operations between the readings, phase %d", i, calls[2*i+1]-calls[2*i], ops)
		}
		want := map[string]uint64{"send_rnr_err": uint64(4*i + 1), "sent_pkts": 10}
		for _, m := range rep.Measurements {
			if m.ValueSize != size {
				continue
			}
			c, err := m.Cell()
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(m.HWCounters, want) || !maps.Equal(c.HWCounters, want) {
				t.Errorf("cell %s: counters %v, results.json %v, want %v", c.Name(), m.HWCounters, c.HWCounters, want)
			}
			if !hasKind(m.Warnings(), results.WarnRNRRetransmit) {
				t.Errorf("cell %s with %d RNR NAKs: warnings %+v", c.Name(), 4*i+1, m.Warnings())
			}
		}
	}
}

// Counters that did not grow are recorded, zeros and all, and earn no
// warning; a hook with nothing to read (tcp) records nothing.
func TestDeviceCountersQuiet(t *testing.T) {
	idle := hwcounters.Counters{"send_rnr_err": 3, "rcvd_rnr_err": 3, "duplicate_request": 1}
	for name, c := range map[string]hwcounters.Counters{"idle": idle, "tcp": nil} {
		cfg := baseConfig(&benchtest.Fake{})
		cfg.DeviceCounters = func() (hwcounters.Counters, error) { return c, nil }
		rep := run(t, cfg)
		for _, m := range rep.Measurements {
			want := map[string]uint64{"send_rnr_err": 0, "rcvd_rnr_err": 0, "duplicate_request": 0}
			if c == nil {
				want = nil
			}
			cell, err := m.Cell()
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(cell.HWCounters, want) || (c == nil) != (cell.HWCounters == nil) {
				t.Errorf("%s: %s counters %v, want %v", name, cell.Name(), cell.HWCounters, want)
			}
			if hasKind(m.Warnings(), results.WarnRNRRetransmit) {
				t.Errorf("%s: %s warns %+v", name, cell.Name(), m.Warnings())
			}
		}
	}
}

// A reading that fails in part keeps what it read, is logged once for the
// run, and costs the cells nothing else.
func TestDeviceCountersFail(t *testing.T) {
	cfg := baseConfig(&benchtest.Fake{})
	cfg.ValueSizes = []int{64, 128}
	var log bytes.Buffer
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	n := uint64(0)
	cfg.DeviceCounters = func() (hwcounters.Counters, error) {
		n++
		return hwcounters.Counters{"rcvd_rnr_err": n}, errors.New("rxe0/ports/1/hw_counters/send_rnr_err: garbage")
	}
	rep := run(t, cfg)
	for _, m := range rep.Measurements {
		if !maps.Equal(m.HWCounters, map[string]uint64{"rcvd_rnr_err": 1}) || m.CPU == nil {
			t.Errorf("cell %d %s: counters %v, CPU %v", m.ValueSize, m.Op, m.HWCounters, m.CPU)
		}
	}
	if lines := strings.Count(log.String(), "RDMA device counters not all read"); lines != 1 || !strings.Contains(log.String(), "garbage") {
		t.Errorf("log, want the first failure once:\n%s", log.String())
	}
}

// linkStore is a store whose link, as its first connection named it, is
// link (nil: none dialed yet).
type linkStore struct{ link *results.Transport }

func (linkStore) Dial(context.Context, int) (bench.Conn, error) { return nil, errors.New("no server") }
func (linkStore) Kind() string                                  { return "rdmakv" }
func (linkStore) Addr() string                                  { return "127.0.0.1:1" }
func (linkStore) Version(context.Context) (string, error)       { return "", nil }
func (linkStore) Check(context.Context, store.Cells) error      { return nil }
func (linkStore) Close() error                                  { return nil }
func (s linkStore) DescribeLink(t *results.Transport) {
	if s.link != nil {
		t.Name, t.Link = s.link.Name, s.link.Link
	}
}

// The harness reads the device and port the store's link names, under
// its sysfs root; over tcp, before any connection, or for a device whose
// counters are absent it reads nothing, and for a store that describes
// no link it has no reader.
func TestHarnessDeviceCounters(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "rxe0", "ports", "1", "hw_counters")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "send_rnr_err"), []byte("5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	verbs := results.Transport{Name: rdmakv.TransportVerbs, Link: rdmakv.Link{Device: "rxe0", Port: 1}}
	got, err := bench.HarnessOf(linkStore{&verbs}, root).DeviceCounters()()
	if err != nil || !maps.Equal(got, hwcounters.Counters{"send_rnr_err": 5}) {
		t.Errorf("verbs on rxe0: %v, %v", got, err)
	}
	other := verbs
	other.Device = "mlx5_0"
	tcp := results.Transport{Name: rdmakv.TransportTCP}
	for name, link := range map[string]*results.Transport{"tcp": &tcp, "not dialed": nil, "no counters": &other} {
		if got, err := bench.HarnessOf(linkStore{link}, root).DeviceCounters()(); got != nil || err != nil {
			t.Errorf("%s: %v, %v; want nothing", name, got, err)
		}
	}
	if f := bench.HarnessOf(struct{ store.Store }{linkStore{&verbs}}, root).DeviceCounters(); f != nil {
		t.Error("a store that describes no link has a counter reader")
	}
}
