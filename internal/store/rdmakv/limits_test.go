package rdmakvstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/store"
	rdmakvstore "github.com/kvbench/kvbench/internal/store/rdmakv"
	"github.com/kvbench/kvbench/rdmakv"
	_ "github.com/kvbench/kvbench/rdmakv/tcp"
)

// defaultLimits are what a kvserver with no flags announces.
var defaultLimits = rdmakv.Limits{MaxEager: rdmakv.DefaultMaxEager, MaxKey: rdmakv.DefaultMaxKey,
	MaxValue: rdmakv.DefaultMaxValue, PoolSize: rdmakv.DefaultPoolSize, MaxInflight: rdmakv.DefaultRecvDepth}

// sweepConfig is workloads/connections-sweep.yaml: 64 B to 1 MiB (x4) at
// thresholds 0 and 2 MiB, 64 keys preloaded.
func sweepConfig() store.Cells {
	return store.Cells{
		Keys: 64, KeySize: 16,
		ValueSizes: []int{64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20},
		Thresholds: []int{0, 2 << 20},
		Preload:    true,
		Depth:      1,
	}
}

func lines(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

// Against a default server, threshold 2 MiB is refused at HELLO: its cells,
// every value size, are named in one line; threshold 0 is fine.
func TestCheckLimitsThresholdAboveMaxEager(t *testing.T) {
	err := rdmakvstore.CheckLimits(sweepConfig(), defaultLimits)
	l := lines(err)
	if len(l) != 1 {
		t.Fatalf("error %v: want one problem", err)
	}
	for _, want := range []string{"threshold 2MiB", "max eager 64KiB", "values 64B, 256B, 1KiB, 4KiB, 16KiB, 64KiB, 256KiB, 1MiB", "kvserver --max-eager to 2MiB"} {
		if !strings.Contains(l[0], want) {
			t.Errorf("%q does not say %q", l[0], want)
		}
	}
}

func TestCheckLimitsFits(t *testing.T) {
	cfg := sweepConfig()
	cfg.Thresholds = []int{0, 64 << 10}
	if err := rdmakvstore.CheckLimits(cfg, defaultLimits); err != nil {
		t.Errorf("cells within every limit: %v", err)
	}
	// A preload that fills the pool exactly still fits.
	cfg.Keys, cfg.ValueSizes = 256, []int{1 << 20}
	if err := rdmakvstore.CheckLimits(cfg, defaultLimits); err != nil {
		t.Errorf("256 x 1MiB in a 256MiB pool: %v", err)
	}
}

// Keys whose sizes are drawn are held by their longest against the
// server's max key, and the message names the law and the max to give.
func TestCheckLimitsKeyDistribution(t *testing.T) {
	cfg := sweepConfig()
	cfg.Thresholds = []int{0}
	cfg.KeySize, cfg.KeyDistribution = 250, "etc, max: 250B"
	lim := defaultLimits
	if err := rdmakvstore.CheckLimits(cfg, lim); err != nil {
		t.Errorf("longest key 250 against max key %d: %v", lim.MaxKey, err)
	}
	lim.MaxKey = 200
	l := lines(rdmakvstore.CheckLimits(cfg, lim))
	if len(l) != 1 || !containsAll(l[0], []string{"keys.size etc, max: 250B", "up to 250 bytes", "max key 200", "max of at most 200B", "--max-key"}) {
		t.Errorf("got %q, want one problem naming the law, its longest key and the server's max", l)
	}
}

// Every problem is reported at once, each with its numbers and its remedy.
func TestCheckLimitsEveryProblem(t *testing.T) {
	cfg := sweepConfig()
	cfg.KeySize, cfg.Depth = 2000, 32
	cfg.Thresholds = []int{4 << 10, 1 << 20, 32 << 20}
	cfg.ValueSizes = []int{64, 8 << 20, 128 << 20}
	lim := defaultLimits
	lim.MaxInflight = 16
	l := lines(rdmakvstore.CheckLimits(cfg, lim))
	want := [][]string{
		{"keys.size 2000", "max key 1024", "--max-key"},
		{"load.depth 32", "16 requests in flight", "--recv-depth"},
		{"threshold 1MiB", "--max-eager to 1MiB"},
		{"threshold 32MiB", "no server takes a max eager above 16MiB"},
		{"preloading keys.count 64 values of 8MiB needs 512MiB (536870912 bytes)", "pool of 256MiB (268435456 bytes)", "thresholds 4KiB, 1MiB, 32MiB", "--pool-size"},
		{"value size 128MiB", "max value 64MiB", "--max-value"},
	}
	if len(l) != len(want) {
		t.Fatalf("%d problems, want %d:\n%s", len(l), len(want), strings.Join(l, "\n"))
	}
	for _, w := range want {
		found := false
		for _, line := range l {
			found = found || containsAll(line, w)
		}
		if !found {
			t.Errorf("no line says %q:\n%s", w, strings.Join(l, "\n"))
		}
	}
	// Without a preload the pool holds what the run writes as it goes.
	cfg.Preload = false
	if l := lines(rdmakvstore.CheckLimits(cfg, lim)); len(l) != len(want)-1 {
		t.Errorf("without preload: %d problems, want %d:\n%s", len(l), len(want)-1, strings.Join(l, "\n"))
	}
}

// Without thresholds (tune places its own) the sizes are checked alone.
func TestCheckLimitsSizesAlone(t *testing.T) {
	cfg := sweepConfig()
	cfg.Thresholds = nil
	lim := defaultLimits
	lim.MaxValue = 64 << 10
	l := lines(rdmakvstore.CheckLimits(cfg, lim))
	if len(l) != 2 || !strings.Contains(l[0], "value size 256KiB") || !strings.Contains(l[1], "value size 1MiB") {
		t.Fatalf("problems:\n%s", strings.Join(l, "\n"))
	}
	if strings.Contains(l[0], "threshold") {
		t.Errorf("%q names thresholds the config has none of", l[0])
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// The store asks the server for its limits over a probe at threshold 0,
// which it accepts whatever the run's thresholds, and Check holds the
// cells against them; a server that is not there is unreachable.
func TestStoreLimits(t *testing.T) {
	s, err := rdmakv.Listen(rdmakv.ServerConfig{Listen: "127.0.0.1:0", Transport: "tcp", MaxEager: 8 << 10, RecvDepth: 8, PoolSize: 16 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := store.Open(ctx, store.Config{Kind: rdmakvstore.Kind, Addr: s.Addr(), Transport: "tcp", KeySize: 8, MaxValue: 8192, MaxThreshold: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lim, err := st.(*rdmakvstore.Store).Limits(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if lim.MaxEager != 8<<10 || lim.MaxInflight != 8 || lim.PoolSize != 16<<20 || lim.MaxValue != 16<<20 {
		t.Errorf("limits %+v, want the server's", lim)
	}
	cells := store.Cells{Keys: 16, KeySize: 8, ValueSizes: []int{64, 8192}, Thresholds: []int{0, 64 << 10}, Depth: 2}
	if err := st.Check(ctx, cells); err == nil || !strings.Contains(err.Error(), "threshold 64KiB") || errors.Is(err, store.ErrUnreachable) {
		t.Errorf("threshold 64KiB against max eager 8KiB: %v", err)
	}
	cells.Thresholds = cells.Thresholds[:1]
	if err := st.Check(ctx, cells); err != nil {
		t.Errorf("cells the server takes: %v", err)
	}

	addr := s.Addr()
	s.Close()
	gone, err := store.Open(ctx, store.Config{Kind: rdmakvstore.Kind, Addr: addr, Transport: "tcp", Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer gone.Close()
	if err := gone.Check(ctx, cells); !errors.Is(err, store.ErrUnreachable) || !strings.Contains(err.Error(), "asking the server for its limits") {
		t.Errorf("a server that is gone: %v", err)
	}
}

// A run whose values' sizes follow a distribution has its largest size
// held against the server's max value, its mean against the pool, and
// its thresholds' problems name the distribution.
func TestCheckLimitsDistribution(t *testing.T) {
	const spec = "weighted: {64B: 90, 128MiB: 10}"
	cells := store.Cells{Keys: 100, KeySize: 16, ValueSizes: []int{128 << 20}, Thresholds: []int{1 << 20}, Preload: true, Depth: 1,
		Distribution: spec, MeanValue: 0.9*64 + 0.1*(128<<20)}
	l := lines(rdmakvstore.CheckLimits(cells, defaultLimits))
	want := [][]string{
		{"threshold 1MiB", "values of values.distribution " + spec},
		{"values.distribution " + spec, "up to 128MiB", "max value 64MiB", "lower max"},
	}
	if len(l) != len(want) {
		t.Fatalf("problems:\n%s\nwant %d", strings.Join(l, "\n"), len(want))
	}
	for i, w := range want {
		for _, s := range w {
			if !strings.Contains(l[i], s) {
				t.Errorf("%q does not say %q", l[i], s)
			}
		}
	}
	// Within max value: the preload's mean need is held against the pool.
	cells.Thresholds, cells.ValueSizes = []int{4096}, []int{32 << 20}
	cells.MeanValue = 0.9*64 + 0.1*(32<<20)
	err := rdmakvstore.CheckLimits(cells, defaultLimits)
	if err == nil || !strings.Contains(err.Error(), "3.2MiB on average, needs about 320.01MiB") {
		t.Errorf("preload above the pool: %v", err)
	}
	cells.Keys = 50 // about 160 MiB: fits
	if err := rdmakvstore.CheckLimits(cells, defaultLimits); err != nil {
		t.Errorf("preload within the pool: %v", err)
	}
}
