package keygen

import (
	"math"
	"math/rand/v2"
	"testing"
)

func draw(g Generator, r *rand.Rand, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = g.Next(r)
	}
	return out
}

func mustNew(t *testing.T, k Spec) Generator {
	t.Helper()
	g, err := New(k)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func allKeys() []Spec {
	var ks []Spec
	for _, d := range Distributions {
		ks = append(ks, Spec{Count: 1000, Distribution: d,
			ZipfianConstant: 0.99, HotFraction: 0.2, HotProbability: 0.8})
	}
	return ks
}

func TestDeterministicPerSeed(t *testing.T) {
	for _, k := range allKeys() {
		t.Run(k.Distribution, func(t *testing.T) {
			a := draw(mustNew(t, k), NewRand(42, 3), 2000)
			b := draw(mustNew(t, k), NewRand(42, 3), 2000)
			for i := range a {
				if a[i] != b[i] {
					t.Fatalf("draw %d: %d vs %d with the same seed and stream", i, a[i], b[i])
				}
				if a[i] < 0 || a[i] >= int64(k.Count) {
					t.Fatalf("draw %d = %d out of [0,%d)", i, a[i], k.Count)
				}
			}
			if k.Distribution == Sequential {
				return // ignores randomness by design
			}
			for _, other := range []*rand.Rand{NewRand(43, 3), NewRand(42, 4)} {
				c := draw(mustNew(t, k), other, 2000)
				same := 0
				for i := range a {
					if a[i] == c[i] {
						same++
					}
				}
				if same == len(a) {
					t.Fatal("a different seed or stream gave the identical sequence")
				}
			}
		})
	}
}

func TestNewRejects(t *testing.T) {
	bad := []Spec{
		{Count: 0, Distribution: Uniform},
		{Count: 10, Distribution: "pareto"},
		{Count: 10, Distribution: Zipfian, ZipfianConstant: 1},
		{Count: 10, Distribution: Zipfian, ZipfianConstant: 0},
		{Count: 10, Distribution: Hotspot, HotFraction: 0, HotProbability: 0.5},
		{Count: 10, Distribution: Hotspot, HotFraction: 0.5, HotProbability: 1.5},
		{Count: 10, Distribution: Latest, ZipfianConstant: -1},
	}
	for _, k := range bad {
		if _, err := New(k); err == nil {
			t.Errorf("New(%+v) accepted", k)
		}
	}
}

// Pearson's chi-square for n=100 bins over 200k draws: 99 degrees of
// freedom, mean 99, sd sqrt(2*99)=14.1. The 99.9th percentile is about
// 148.2, so a correct generator fails with probability 1e-3 per seed; the
// seed is fixed, so the test is deterministic.
func TestUniformChiSquare(t *testing.T) {
	const bins, draws = 100, 200000
	g := NewUniform(bins)
	r := NewRand(1, 0)
	var counts [bins]int
	for i := 0; i < draws; i++ {
		counts[g.Next(r)]++
	}
	exp := float64(draws) / bins
	var chi float64
	for _, c := range counts {
		d := float64(c) - exp
		chi += d * d / exp
	}
	if chi > 148.2 {
		t.Fatalf("chi-square %.1f > 148.2 (99 dof, p=0.001)", chi)
	}
	// A generator stuck on a subset has a huge chi-square, but also check
	// the degenerate "too perfect" side, which would betray a counter.
	if chi < 60 {
		t.Fatalf("chi-square %.1f < 60: draws are suspiciously even", chi)
	}
}

func TestZipfianShape(t *testing.T) {
	const n, draws, theta = 1000, 500000, 0.99
	z, err := NewZipfian(n, theta)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRand(7, 0)
	counts := make([]float64, n)
	for i := 0; i < draws; i++ {
		counts[z.Next(r)]++
	}
	// Rank 1 has probability 1/zeta(n). Its count is binomial: sd =
	// sqrt(N p (1-p)); allow 5 sd.
	p1 := 1 / z.Zeta()
	sd := math.Sqrt(draws * p1 * (1 - p1))
	if d := math.Abs(counts[0] - draws*p1); d > 5*sd {
		t.Fatalf("rank 1: %v draws, want %.0f +- %.0f", counts[0], draws*p1, 5*sd)
	}
	var zref float64 // summed smallest-first, independently of the generator
	for i := n; i >= 1; i-- {
		zref += math.Pow(float64(i), -theta)
	}
	if math.Abs(z.Zeta()-zref) > 1e-9 {
		t.Fatalf("zeta = %v, want %v", z.Zeta(), zref)
	}
	// Least-squares slope of log(count) against log(rank) over ranks 1..100
	// (enough draws per rank: rank 100 expects ~700). The model gives
	// -theta; the Gray approximation is not exact beyond rank 2, so allow
	// 0.05.
	var sx, sy, sxx, sxy, m float64
	for i := 0; i < 100; i++ {
		x, y := math.Log(float64(i+1)), math.Log(counts[i])
		sx, sy, sxx, sxy, m = sx+x, sy+y, sxx+x*x, sxy+x*y, m+1
	}
	slope := (m*sxy - sx*sy) / (m*sxx - sx*sx)
	if math.Abs(slope+theta) > 0.05 {
		t.Fatalf("log-log slope %.3f, want %.2f +- 0.05", slope, -theta)
	}
}

func TestScrambledZipfianSpreadsHotKeys(t *testing.T) {
	const n = 1000
	g, err := NewScrambledZipfian(n, 0.99)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRand(9, 0)
	counts := make([]int, n)
	for i := 0; i < 200000; i++ {
		counts[g.Next(r)]++
	}
	best, bi := 0, 0
	for i, c := range counts {
		if c > best {
			best, bi = c, i
		}
	}
	// Still skewed: the hottest key takes about 1/zeta = 13%.
	if best < 200000/10 {
		t.Fatalf("hottest key has %d draws, want >= 10%%", best)
	}
	if bi == 0 && counts[1] > counts[2] {
		t.Fatalf("hot keys still clustered at 0, 1")
	}
	if want := int64(fnv64(0) % n); int64(bi) != want {
		t.Fatalf("hottest key %d, want hash of rank 0 = %d", bi, want)
	}
}

func TestHotspotShare(t *testing.T) {
	const n, draws = 1000, 200000
	for _, c := range []struct{ frac, prob float64 }{{0.2, 0.8}, {0.01, 0.99}, {0.5, 0.1}} {
		h, err := NewHotspot(n, c.frac, c.prob)
		if err != nil {
			t.Fatal(err)
		}
		r := NewRand(3, 1)
		hot := 0
		for i := 0; i < draws; i++ {
			if h.Next(r) < h.HotSize() {
				hot++
			}
		}
		sd := math.Sqrt(draws * c.prob * (1 - c.prob))
		if d := math.Abs(float64(hot) - draws*c.prob); d > 5*sd {
			t.Errorf("frac %v prob %v: %d hot draws, want %.0f +- %.0f", c.frac, c.prob, hot, draws*c.prob, 5*sd)
		}
		if h.HotSize() != int64(n*c.frac) {
			t.Errorf("hot set %d, want %d", h.HotSize(), int64(n*c.frac))
		}
	}
	// Everything hot: only the hot set is ever drawn.
	h, _ := NewHotspot(10, 1, 0)
	r := NewRand(1, 1)
	for i := 0; i < 1000; i++ {
		if v := h.Next(r); v < 0 || v >= 10 {
			t.Fatalf("draw %d out of range", v)
		}
	}
}

func TestSequentialWraps(t *testing.T) {
	s := NewSequential(5, 0, 1)
	want := []int64{0, 1, 2, 3, 4, 0, 1, 2}
	for i, w := range want {
		if got := s.Next(nil); got != w {
			t.Fatalf("draw %d = %d, want %d", i, got, w)
		}
	}
	// Three workers partitioning 7 keys cover each key exactly once per lap.
	seen := map[int64]int{}
	for w := int64(0); w < 3; w++ {
		g := NewSequential(7, w, 3)
		for i := 0; i < 7; i++ {
			seen[g.Next(nil)]++
		}
	}
	for k := int64(0); k < 7; k++ {
		if seen[k] != 3 {
			t.Fatalf("key %d drawn %d times over 3 workers x 7 draws, want 3: %v", k, seen[k], seen)
		}
	}
}

func TestLatestFavoursRecent(t *testing.T) {
	const n = 1000
	var c Counter
	g, err := NewLatest(n, 0.99, &c)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRand(5, 0)
	if v := g.Next(r); v != 0 {
		t.Fatalf("nothing inserted: got %d, want 0", v)
	}
	c.Store(500) // keys 0..499 inserted, 499 most recent
	counts := map[int64]int{}
	for i := 0; i < 100000; i++ {
		v := g.Next(r)
		if v < 0 || v >= 500 {
			t.Fatalf("drew %d, not yet inserted", v)
		}
		counts[v]++
	}
	if counts[499] < counts[498] || counts[498] < counts[400] || counts[499] < 100000/10 {
		t.Fatalf("not skewed to recent: 499:%d 498:%d 400:%d", counts[499], counts[498], counts[400])
	}
	// After more inserts than keys the window wraps: 1200 inserts means key
	// 199 is newest, and 200 (inserted 999 steps ago) is the oldest.
	c.Store(1200)
	counts = map[int64]int{}
	for i := 0; i < 100000; i++ {
		counts[g.Next(r)]++
	}
	if counts[199] < counts[198] || counts[199] < 100000/10 || counts[199] < 10*counts[200] {
		t.Fatalf("after wrap: 199:%d 198:%d 200:%d", counts[199], counts[198], counts[200])
	}
}

func TestKey(t *testing.T) {
	cases := []struct {
		idx  int64
		size int
		want string
	}{
		{42, 8, "k0000042"},
		{0, 1, "k"},
		{9, 2, "k9"},
		{123, 3, "k23"}, // beyond capacity: aliases
		{math.MaxInt64, 20, "k9223372036854775807"},
		{7, 24, "k00000000000000000000007"},
	}
	for _, c := range cases {
		if got := string(Key(nil, c.idx, c.size)); got != c.want {
			t.Errorf("Key(%d, %d) = %q, want %q", c.idx, c.size, got, c.want)
		}
	}
	buf := make([]byte, 0, 32)
	k := Key(buf, 5, 16)
	if &k[0] != &buf[:1][0] {
		t.Fatal("Key did not reuse dst")
	}
	// Reusing a buffer that held a longer index leaves none of its digits.
	Key(buf, 98765432, 10)
	if got := string(Key(buf, 3, 10)); got != "k000000003" {
		t.Fatalf("reused buffer: %q, want k000000003", got)
	}
	if got := string(Key(buf, 0, 6)); got != "k00000" {
		t.Fatalf("index 0: %q, want k00000", got)
	}
	if len(Key(buf, -3, 4)) != 4 || len(Key(nil, 1, 0)) != 0 {
		t.Fatal("wrong length")
	}
	// Distinct indexes below capacity give distinct keys.
	seen := map[string]bool{}
	for i := int64(0); i < Capacity(4); i++ {
		s := string(Key(buf, i, 4))
		if seen[s] {
			t.Fatalf("duplicate key %q", s)
		}
		seen[s] = true
	}
	if Capacity(4) != 1000 || Capacity(0) != 0 || Capacity(30) != math.MaxInt64 {
		t.Fatal("Capacity")
	}
}

// SizeFor is the least size whose capacity holds the count, and each
// index below the count has a key of its own at every size from it on.
func TestSizeFor(t *testing.T) {
	for _, c := range []struct {
		count int64
		want  int
	}{{0, 1}, {1, 1}, {2, 2}, {10, 2}, {11, 3}, {1000, 4}, {1001, 5}, {math.MaxInt64, 20}} {
		got := SizeFor(c.count)
		if got != c.want || Capacity(got) < c.count || got > 1 && Capacity(got-1) >= c.count {
			t.Errorf("SizeFor(%d) = %d, want %d", c.count, got, c.want)
		}
	}
	seen := map[string]int64{}
	for size := SizeFor(500); size < 8; size++ {
		for i := range int64(500) {
			k := string(Key(nil, i, size))
			if prev, dup := seen[k]; dup {
				t.Fatalf("indexes %d and %d share key %q", prev, i, k)
			}
			seen[k] = i
		}
	}
}

func TestZeroAllocs(t *testing.T) {
	buf := make([]byte, 0, 64)
	for _, k := range allKeys() {
		g := mustNew(t, k)
		r := NewRand(1, 1)
		if a := testing.AllocsPerRun(1000, func() { _ = Key(buf, g.Next(r), 16) }); a != 0 {
			t.Errorf("%s: %v allocs per Next+Key", k.Distribution, a)
		}
	}
}

func BenchmarkNext(b *testing.B) {
	for _, k := range allKeys() {
		k.Count = 1000000
		g, err := New(k)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(k.Distribution, func(b *testing.B) {
			r := NewRand(1, 1)
			b.ReportAllocs()
			var s int64
			for b.Loop() {
				s += g.Next(r)
			}
			_ = s
		})
	}
}

func BenchmarkKey(b *testing.B) {
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	var i int64
	for b.Loop() {
		buf = Key(buf, i, 24)
		i++
	}
}

func TestTinyKeySpaces(t *testing.T) {
	r := NewRand(1, 2)
	for n := 1; n <= 3; n++ {
		for _, d := range Distributions {
			g := mustNew(t, Spec{Count: n, Distribution: d, ZipfianConstant: 0.5, HotFraction: 0.5, HotProbability: 0.5})
			seen := map[int64]bool{}
			for i := 0; i < 2000; i++ {
				v := g.Next(r)
				if v < 0 || v >= int64(n) {
					t.Fatalf("%s n=%d: drew %d", d, n, v)
				}
				seen[v] = true
			}
			// Scrambling hashes ranks mod n, so tiny spaces have collisions.
			if d != ScrambledZipfian && len(seen) != n {
				t.Errorf("%s n=%d: drew only %v", d, n, seen)
			}
		}
	}
}

// Next computes x^alpha as exp(alpha*ln x) for speed; it must draw what
// Gray's formula with math.Pow draws, except for a rare neighbour where
// the two land either side of an integer.
func TestZipfianMatchesPowFormula(t *testing.T) {
	for _, c := range []struct {
		n     int64
		theta float64
	}{{3, 0.5}, {1000, 0.99}, {100000, 0.8}, {1000000, 0.99}} {
		z, err := NewZipfian(c.n, c.theta)
		if err != nil {
			t.Fatal(err)
		}
		ref := func(u float64) int64 {
			uz := u * z.zetan
			if uz < 1 || z.n == 1 {
				return 0
			}
			if uz < z.half {
				return 1
			}
			return min(int64(float64(z.n)*math.Pow(z.eta*u-z.eta+1, z.alpha)), z.n-1)
		}
		const draws = 200000
		r, rr := NewRand(11, 3), NewRand(11, 3)
		var differ int
		for range draws {
			got, want := z.Next(r), ref(rr.Float64())
			if got != want {
				differ++
				if got-want > 1 || want-got > 1 {
					t.Fatalf("n %d theta %v: drew %d, the Pow formula %d", c.n, c.theta, got, want)
				}
			}
		}
		if differ > draws/10000 {
			t.Errorf("n %d theta %v: %d of %d draws differ from the Pow formula", c.n, c.theta, differ, draws)
		}
	}
}
