package bench_test

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/workload"
)

// etcWorkload is workloads/etc.yaml, whose keys' sizes follow ETC's key
// law up to 250 bytes, shortened to a verified run of 2000 operations on
// tcp.
func etcWorkload(t *testing.T) *workload.Workload {
	t.Helper()
	w, err := workload.LoadFile("../../workloads/etc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if w.Keys.SizeLaw() == nil || w.Keys.Size != 250 {
		t.Fatalf("etc.yaml keys %+v: want sizes drawn up to 250 bytes", w.Keys)
	}
	w.Target.Transport, w.Verify = "tcp", true
	w.Phases = workload.Phases{Measure: workload.Phase{Ops: 2000}}
	w.Load = workload.Load{Mode: "closed", Connections: 2, Depth: 2}
	return w
}

// keysWith is a key space of count keys whose sizes follow spec, as
// keys.size gives it.
func keysWith(t *testing.T, count int, spec string) workload.Keys {
	t.Helper()
	w, err := workload.Parse("k.yaml", []byte("keys: {count: "+strconv.Itoa(count)+", size: "+spec+"}\nvalues: {sizes: [64]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return w.Keys
}

// Every key a run sends is key index i at the size KeySize draws for i,
// whatever the operation, and the sizes of the keys, one per index (the
// preload writes each), follow the law (Kolmogorov-Smirnov), sizes too
// short for the key count raised to what it needs.
func TestKeySizeFollowsLaw(t *testing.T) {
	for _, keys := range []workload.Keys{etcWorkload(t).Keys, keysWith(t, 20000, "{uniform: {min: 1, max: 64}}")} {
		spec, law := keys.SizeDistribution.Spec, keys.SizeLaw()
		f := &benchtest.Fake{Record: true}
		cfg := baseConfig(f)
		cfg.Keys, cfg.Preload = keys, true
		run(t, cfg)
		sizes := map[int64]int{} // by key index
		for _, c := range f.Conns() {
			for _, r := range c.Ops() {
				idx, err := strconv.ParseInt(r.Key[1:], 10, 64)
				if err != nil || idx < 0 || idx >= int64(keys.Count) {
					t.Fatalf("%s: key %q is not one of %d indexes", spec, r.Key, keys.Count)
				}
				if want := keygen.Key(nil, idx, bench.KeySize(law, cfg.Seed, idx)); r.Key != string(want) {
					t.Fatalf("%s: %v sent key %q for index %d, want %q", spec, r.Op, r.Key, idx, want)
				}
				sizes[idx] = len(r.Key)
			}
		}
		if len(sizes) != keys.Count {
			t.Fatalf("%s: %d keys sent, want the %d the preload writes", spec, len(sizes), keys.Count)
		}
		preloaded := slices.Sorted(maps.Values(sizes))
		if preloaded[0] < keygen.SizeFor(int64(keys.Count)) || preloaded[len(preloaded)-1] > keys.Size {
			t.Errorf("%s: key sizes %d..%d, want within %d..%d", spec, preloaded[0], preloaded[len(preloaded)-1], keygen.SizeFor(int64(keys.Count)), keys.Size)
		}
		checkKS(t, spec, law, preloaded)
	}
}

// A key's size is a pure function of (seed, key index): the same each
// time, another for another seed.
func TestKeySizeReproducible(t *testing.T) {
	law := keysWith(t, 1000, "{uniform: {min: 8, max: 1000}}").SizeLaw()
	var differ int
	for k := range int64(1000) {
		s := bench.KeySize(law, 42, k)
		if again := bench.KeySize(law, 42, k); again != s {
			t.Fatalf("key %d: %d, then %d", k, s, again)
		}
		if bench.KeySize(law, 43, k) != s {
			differ++
		}
	}
	if differ < 980 { // two draws of 993 sizes agree about once in 993
		t.Errorf("another seed gave another size %d times of 1000", differ)
	}
}

// The ETC workload, keys of drawn sizes up to 250 bytes and values of
// ETC's, verified against an embedded server over tcp sized from it:
// the server takes its longest key, and verify finds no bad value.
func TestKeySizeETCEmbedded(t *testing.T) {
	w := etcWorkload(t)
	cfg := bench.FromWorkload(w)
	h, err := bench.OpenHarness(bench.HarnessConfig{Workload: w, MaxValue: cfg.Sizes.Max(), MaxThreshold: slices.Max(cfg.Thresholds),
		Sizes: cfg.Sizes, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	if err := h.Check(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Codec, cfg.Dialer, cfg.FreshServer = bench.Values{}, h.Dialer(), true
	rep := run(t, cfg)
	if rep.Verify.Failed() || rep.Verify.Checked == 0 {
		t.Errorf("verify %+v", rep.Verify)
	}
	for _, m := range rep.Measurements {
		for k, n := range m.Errors {
			if k != int(bench.KindNone) && k != int(bench.KindNotFound) && n != 0 {
				t.Errorf("threshold %d %v %v: %d %v", m.Threshold, m.Op, m.Protocol, n, bench.ErrorKind(k))
			}
		}
	}
}
