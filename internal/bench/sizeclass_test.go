package bench_test

import (
	"math"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/results"
)

// checkSizeClasses holds each mixed cell's size classes to its counts and
// bytes and to the threshold: a class whose every size goes eager (key
// and value within the threshold) is never rendezvous, and one whose
// every size is above it never eager. Each cell's Sizes counts its op's
// operations at the threshold, both protocols', and shares them.
func checkSizeClasses(t *testing.T, rep *bench.Report, keySize int) {
	t.Helper()
	ops := map[[2]int]int64{}
	for _, m := range rep.Measurements {
		ops[[2]int{m.Threshold, int(m.Op)}] += m.Count
	}
	for _, m := range rep.Measurements {
		c, err := m.Cell()
		if err != nil {
			t.Fatal(err)
		}
		var n, b int64
		for _, k := range c.SizeClasses {
			n, b = n+k.Count, b+k.Bytes
			if k.Count == 0 || k.P50 <= 0 || k.P99 < k.P50 {
				t.Errorf("%s class %d: %+v", c.Name(), k.Class, k)
			}
			switch {
			case k.Class == 0:
			case int(k.Class)+keySize < m.Threshold && m.Protocol != bench.Eager:
				t.Errorf("%s: class %d entirely below the threshold went %v", c.Name(), k.Class, m.Protocol)
			case int(k.Class/2)+keySize > m.Threshold && m.Protocol != bench.Rendezvous:
				t.Errorf("%s: class %d entirely above the threshold went %v", c.Name(), k.Class, m.Protocol)
			}
		}
		if n != c.Count || b != m.Bytes {
			t.Errorf("%s: classes count %d operations and %d bytes; the cell %d and %d", c.Name(), n, b, c.Count, m.Bytes)
		}
		checkMix(t, c, ops[[2]int{m.Threshold, int(m.Op)}])
	}
}

func checkMix(t *testing.T, c results.Cell, ops int64) {
	t.Helper()
	if c.Sizes == nil {
		t.Fatalf("%s: no sizes", c.Name())
	}
	var n int64
	var req, by float64
	for _, p := range c.Sizes.Protocols {
		n, req, by = n+p.Count, req+p.Requests, by+p.ByteShare
	}
	if n != ops || math.Abs(req-1) > 1e-9 || (c.Op != "delete" && math.Abs(by-1) > 1e-9) {
		t.Errorf("%s: protocols count %d of %d operations, shares %.3f of requests and %.3f of bytes", c.Name(), n, ops, req, by)
	}
	if (c.Op == "set") != (len(c.Sizes.Law) > 0) {
		t.Errorf("%s: law %v", c.Name(), c.Sizes.Law)
	}
}

// The sizes a run sends are held against its law: a law clamped to a max
// that moves most of its mass earns the warning, the same law unclamped
// none, and a fixed size no classes at all.
func TestSizesOffLawWarning(t *testing.T) {
	for spec, want := range map[string]bool{
		"uniform: {min: 1KiB, max: 64KiB}":            false,
		"uniform: {min: 1KiB, max: 64KiB}\nmax: 8KiB": true,
		"weighted: {64B: 70, 4KiB: 20, 256KiB: 10}":   false,
	} {
		cfg := withSizes(baseConfig(&benchtest.Fake{}), law(t, spec))
		cfg.Thresholds = []int{4096}
		rep := run(t, cfg)
		checkSizeClasses(t, rep, cfg.Keys.Size)
		for _, m := range rep.Measurements {
			got := false
			for _, w := range m.Warnings() {
				got = got || w.Kind == results.WarnSizesOffLaw
			}
			if got != (want && m.Op == bench.OpSet) {
				t.Errorf("%s, %v %v: sizes_off_law %v", spec, m.Op, m.Protocol, got)
			}
		}
	}
	rep := run(t, baseConfig(&benchtest.Fake{}))
	for _, m := range rep.Measurements {
		if c, _ := m.Cell(); c.SizeClasses != nil || c.Sizes != nil {
			t.Errorf("%s: fixed size has classes %v, sizes %v", c.Name(), c.SizeClasses, c.Sizes)
		}
	}
}
