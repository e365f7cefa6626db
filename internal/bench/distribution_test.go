package bench_test

import (
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/sizegen"
	rdmakvstore "github.com/kvbench/kvbench/internal/store/rdmakv"
	"github.com/kvbench/kvbench/internal/workload"
)

func law(t testing.TB, spec string) *workload.Distribution {
	t.Helper()
	d, err := workload.NewDistribution(spec)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// withSizes makes cfg draw its values' sizes from d.
func withSizes(cfg bench.Config, d *workload.Distribution) bench.Config {
	cfg.Sizes, cfg.SizesSpec, cfg.ValueSizes = d.Law(), d.Spec, []int{int(d.MeanSize())}
	return cfg
}

// The size of the value at (seed, key, version) is a pure function of the
// three: the same each time it is asked, another for another seed, key or
// version.
func TestValueSizeReproducible(t *testing.T) {
	d := law(t, "uniform: {min: 1, max: 1000000}").Law()
	differs := map[string]int{}
	for k := int64(0); k < 200; k++ {
		for v := uint64(0); v < 5; v++ {
			s := bench.ValueSize(d, 42, k, v)
			if again := bench.ValueSize(d, 42, k, v); again != s {
				t.Fatalf("key %d version %d: %d, then %d", k, v, s, again)
			}
			for what, other := range map[string]int{
				"seed": bench.ValueSize(d, 43, k, v), "key": bench.ValueSize(d, 42, k+1000, v), "version": bench.ValueSize(d, 42, k, v+1000),
			} {
				if other != s {
					differs[what]++
				}
			}
		}
	}
	// A million sizes: two draws agree by chance about once in 10^6.
	for _, what := range []string{"seed", "key", "version"} {
		if differs[what] < 998 {
			t.Errorf("another %s gave another size %d times of 1000", what, differs[what])
		}
	}
}

// The sizes drawn over keys and versions follow the law: a weighted list's
// sizes in their proportions (chi-square), and a continuous one's CDF
// (Kolmogorov-Smirnov), for neighbouring keys and versions alike.
func TestValueSizeFollowsLaw(t *testing.T) {
	const n = 50000
	draw := func(d sizegen.Distribution, i int) int {
		return bench.ValueSize(d, 1, int64(i%1000), uint64(i/1000))
	}
	w := law(t, "weighted: {64B: 70, 4KiB: 20, 256KiB: 10}").Law()
	counts := map[int]float64{}
	for i := range n {
		counts[draw(w, i)]++
	}
	var chi2 float64
	for s, p := range map[int]float64{64: 0.7, 4096: 0.2, 256 << 10: 0.1} {
		e := p * n
		chi2 += (counts[s] - e) * (counts[s] - e) / e
	}
	if len(counts) != 3 || chi2 > 13.8 { // 2 degrees of freedom, p = 0.001
		t.Errorf("weighted sizes %v: chi-square %.1f, above 13.8", counts, chi2)
	}
	for _, spec := range []string{"uniform: {min: 1KiB, max: 64KiB}", "etc, max: 1MiB", "gpd: {scale: 1000, shape: 0.2}, max: 1MiB"} {
		d := law(t, spec).Law()
		sizes := make([]int, n)
		for i := range sizes {
			sizes[i] = draw(d, i)
		}
		sort.Ints(sizes)
		if sizes[0] < d.Min() || sizes[n-1] > d.Max() {
			t.Errorf("%s: sizes %d..%d outside %d..%d", spec, sizes[0], sizes[n-1], d.Min(), d.Max())
		}
		checkKS(t, spec, d, sizes)
	}
}

// checkKS fails t unless the sorted sizes pass a Kolmogorov-Smirnov test
// against d at p = 0.001. D = max |F_n(x) - F(x)| over the steps of the
// empirical CDF; the law is discrete, so F is compared just below and at
// each size.
func checkKS(t *testing.T, what string, d sizegen.Distribution, sizes []int) {
	t.Helper()
	n := len(sizes)
	var D float64
	for i := 0; i < n; {
		j := i
		for j < n && sizes[j] == sizes[i] {
			j++
		}
		D = max(D, math.Abs(float64(i)/float64(n)-d.CDF(sizes[i]-1)), math.Abs(float64(j)/float64(n)-d.CDF(sizes[i])))
		i = j
	}
	if crit := 1.95 / math.Sqrt(float64(n)); D > crit {
		t.Errorf("%s: Kolmogorov-Smirnov D = %.4f, above %.4f", what, D, crit)
	}
}

// The preload writes every key at its version-0 size, verifying or not.
func TestPreloadDrawsVersionZeroSizes(t *testing.T) {
	for _, verify := range []bool{false, true} {
		f := &benchtest.Fake{}
		d := law(t, "weighted: {64B: 1, 1KiB: 1, 16KiB: 1}")
		cfg := withSizes(baseConfig(f), d)
		cfg.Mix, cfg.Preload, cfg.Verify, cfg.FreshServer = workload.Mix{Get: 1}, true, verify, true
		run(t, cfg)
		key := make([]byte, cfg.Keys.Size)
		for i := range int64(cfg.Keys.Count) {
			key = keygen.Key(key, i, cfg.Keys.Size)
			got, ok := f.Len(string(key))
			if want := bench.ValueSize(d.Law(), cfg.Seed, i, 0); !ok || got != want {
				t.Fatalf("verify %v: key %d holds %d bytes (%v), want its version-0 size %d", verify, i, got, ok, want)
			}
		}
	}
}

// A cell whose sizes follow a distribution splits its operations between
// the protocols by size: at a threshold between the sizes it records both,
// each with the bytes its values moved, verification finds nothing wrong,
// and the cell is named by the law's mean and spec.
func TestDistributionCellSplitsProtocols(t *testing.T) {
	f := &benchtest.Fake{}
	d := law(t, "weighted: {100B: 1, 3000B: 1, 20000B: 1}")
	cfg := withSizes(baseConfig(f), d)
	cfg.Thresholds = []int{1024, 8192, 1 << 20}
	cfg.Preload, cfg.Verify, cfg.FreshServer = true, true, true
	cfg.Mix = workload.Mix{Get: 0.6, Set: 0.4}
	rep := run(t, cfg)
	if rep.Verify.Failed() || rep.Verify.Checked == 0 {
		t.Fatalf("verify %+v", rep.Verify)
	}
	seen := map[string]bool{}
	for _, m := range rep.Measurements {
		seen[fmt.Sprint(m.Threshold, m.Op, m.Protocol)] = true
		c, err := m.Cell()
		if err != nil {
			t.Fatal(err)
		}
		if c.Distribution != d.Spec || c.ValueSize != 7700 || m.Distribution != d.Spec {
			t.Errorf("%s: distribution %q, value size %d; want %q at its mean 7700", c.Name(), c.Distribution, c.ValueSize, d.Spec)
		}
		// The mean value this (op, protocol) moved is one of its sizes'.
		mean := float64(m.Bytes) / float64(m.Count-m.Errors[bench.KindNotFound])
		lo, hi := 100.0, 20000.0
		switch {
		case m.Protocol == bench.Eager:
			hi = float64(m.Threshold - cfg.Keys.Size)
		default:
			lo = float64(m.Threshold - cfg.Keys.Size)
		}
		if !(mean >= lo && mean <= hi) || m.Bytes == 0 {
			t.Errorf("%s: %d bytes over %d operations, a mean of %.0f, want within %.0f..%.0f", c.Name(), m.Bytes, m.Count, mean, lo, hi)
		}
		if secs := time.Duration(c.DurationNs).Seconds(); math.Abs(c.ThroughputBytes-float64(m.Bytes)/secs) > 1e-6*c.ThroughputBytes {
			t.Errorf("%s: %.0f B/s, want the bytes moved over the phase, %.0f", c.Name(), c.ThroughputBytes, float64(m.Bytes)/secs)
		}
	}
	for _, op := range []bench.Op{bench.OpGet, bench.OpSet} {
		for _, want := range []string{fmt.Sprint(8192, op, bench.Eager), fmt.Sprint(8192, op, bench.Rendezvous), fmt.Sprint(1<<20, op, bench.Eager)} {
			if !seen[want] {
				t.Errorf("no %s measurement; have %v", want, seen)
			}
		}
		if seen[fmt.Sprint(1<<20, op, bench.Rendezvous)] {
			t.Errorf("rendezvous %v at threshold 1MiB, above every size", op)
		}
	}
}

// With a distribution the run's cells are one per threshold, the server
// is asked for its largest size, and a config naming more than one size
// is refused.
func TestDistributionConfig(t *testing.T) {
	d := law(t, "uniform: {min: 1KiB, max: 64KiB}")
	w, err := workload.Parse("w.yaml", []byte("values: {distribution: {uniform: {min: 1KiB, max: 64KiB}}}\nthresholds: [1KiB, 4KiB]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := bench.FromWorkload(w)
	if cfg.SizesSpec != d.Spec || !slices.Equal(cfg.ValueSizes, []int{33280}) || cfg.MaxValueSize() != 64<<10 {
		t.Errorf("config: spec %q sizes %v max %d", cfg.SizesSpec, cfg.ValueSizes, cfg.MaxValueSize())
	}
	cells := cfg.Cells()
	if !slices.Equal(cells.ValueSizes, []int{64 << 10}) || cells.Distribution != d.Spec || math.Abs(cells.MeanValue-33280) > 1e-6 {
		t.Errorf("server cells %+v", cells)
	}
	cfg.Dialer, cfg.Codec = &benchtest.Fake{}, bench.Values{}
	cfg.ValueSizes = []int{1, 2}
	if err := cfg.Validate(); err == nil {
		t.Error("two value sizes with a distribution accepted")
	}
}

// A verified run over rdmakv's embedded server on TCP, the server sized
// for the distribution: no bad value, and at the middle threshold both
// protocols for gets and sets, each size class on its protocol's side of
// the threshold.
func TestDistributionRdmakvEmbedded(t *testing.T) {
	d := law(t, "weighted: {64B: 40, 2KiB: 30, 48KiB: 20, 256KiB: 10}")
	emb, err := rdmakvstore.StartEmbedded(rdmakvstore.EmbeddedConfig{
		Transport: "tcp", Keys: 64, KeySize: 12, MaxValue: d.Law().Max(), Sizes: d.Law(), MaxThreshold: 64 << 10, Workers: 4,
		Logger: slog.New(slog.DiscardHandler),
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	dial := &rdmakvstore.Dialer{Addr: emb.Addr(), Transport: emb.Info().Transport, Timeout: 10 * time.Second, Depth: 2,
		StagingSize: rdmakvstore.StagingSize(2, 12+d.Law().Max())}
	cfg := withSizes(bench.Config{
		Seed: 3, Keys: workload.Keys{Count: 64, Size: 12, Distribution: "uniform"},
		Thresholds: []int{1 << 10, 8 << 10, 64 << 10},
		Mix:        workload.Mix{Get: 0.5, Set: 0.4, Delete: 0.1}, Preload: true,
		Measure: workload.Phase{Ops: 600}, Load: workload.Load{Mode: "closed", Connections: 2, Depth: 2},
		Verify: true, FreshServer: true, Dialer: dial, Codec: bench.Values{},
	}, d)
	rep := run(t, cfg)
	if rep.Verify.Failed() || rep.Verify.Checked == 0 {
		t.Errorf("verify %+v", rep.Verify)
	}
	seen := map[string]bool{}
	for _, m := range rep.Measurements {
		for k, n := range m.Errors {
			if k != int(bench.KindNone) && k != int(bench.KindNotFound) && n != 0 {
				t.Errorf("threshold %d %v %v: %d %v", m.Threshold, m.Op, m.Protocol, n, bench.ErrorKind(k))
			}
		}
		if m.Threshold == 8<<10 && m.Count > 0 {
			seen[fmt.Sprint(m.Op, m.Protocol)] = true
		}
	}
	checkSizeClasses(t, rep, cfg.Keys.Size)
	for _, op := range []bench.Op{bench.OpGet, bench.OpSet} {
		for _, p := range []bench.Protocol{bench.Eager, bench.Rendezvous} {
			if !seen[fmt.Sprint(op, p)] {
				t.Errorf("threshold 8KiB: no %v %v; have %v", op, p, seen)
			}
		}
	}
}

// A warmup records into the histograms the measure phase then reuses:
// the cell holds the measure phase's operations alone, by size class too.
func TestWarmupLeavesNothingInTheCell(t *testing.T) {
	cfg := withSizes(baseConfig(&benchtest.Fake{}), law(t, "uniform: {min: 64, max: 64KiB}"))
	cfg.Mix = workload.Mix{Get: 0.5, Set: 0.5}
	cfg.Warmup, cfg.Measure = workload.Phase{Ops: 3000}, workload.Phase{Ops: 1000}
	var total, classes int64
	for _, m := range run(t, cfg).Measurements {
		total += m.Count
		c, err := m.Cell()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range c.SizeClasses {
			classes += k.Count
		}
	}
	if total != 1000 || classes != 1000 {
		t.Errorf("cells hold %d operations, their size classes %d; the measure phase ran 1000", total, classes)
	}
}

// A measure phase shorter than the warmup before it reports only what it
// measured: no cell, and no size class of one, that only the warmup saw.
func TestShortMeasureAfterWarmupHasNoEmptyCells(t *testing.T) {
	cfg := withSizes(baseConfig(&benchtest.Fake{}), law(t, "uniform: {min: 64, max: 64KiB}"))
	cfg.Mix = workload.Mix{Get: 0.5, Set: 0.5}
	cfg.Load = workload.Load{Mode: "closed", Connections: 1, Depth: 1}
	cfg.Warmup, cfg.Measure = workload.Phase{Ops: 3000}, workload.Phase{Ops: 3}
	var total int64
	for _, m := range run(t, cfg).Measurements {
		if m.Count == 0 {
			t.Errorf("%v %v: a cell of no operations", m.Op, m.Protocol)
		}
		total += m.Count
		c, err := m.Cell()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range c.SizeClasses {
			if k.Count == 0 {
				t.Errorf("%v %v: size class %d of no operations", m.Op, m.Protocol, k.Class)
			}
		}
	}
	if total != 3 {
		t.Errorf("cells hold %d operations, the measure phase ran 3", total)
	}
}
