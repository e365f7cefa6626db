package sizegen

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// must unwraps a constructor's result in fixtures, whose parameters are
// valid.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

type namedDist struct {
	name string
	d    Distribution
}

// dists is one of each distribution, with parameters that exercise their
// cases; the first word of each name is the benchmark's.
func dists() []namedDist {
	hist := must(ReadHistogram(strings.NewReader("size,count\n100,5\n1KiB,3\n4000,1\n1MiB,1\n")))
	return []namedDist{
		{"weighted", must(NewWeighted([]Weight{{64, 70}, {4096, 20}, {65536, 10}}))},
		{"weighted/many", must(NewWeighted(manyWeights()))},
		{"uniform", must(NewUniform(1024, 65536))},
		{"uniform/small", must(NewUniform(1, 10))},
		{"gpd", must(NewGPD(etcLocation, etcScale, etcShape))},
		{"gpd/exponential", must(NewGPD(100, 50, 0))},
		{"gpd/bounded", must(NewGPD(0, 1000, -0.5))},
		{"gpd/heavy", must(NewGPD(1, 10, 1.5))},
		{"etc", ETC()},
		{"etc_key", ETCKey()},
		{"gev/gumbel", must(NewGEV(100, 20, 0))},
		{"gev/bounded", must(NewGEV(100, 20, -0.3))},
		{"histogram", hist},
		{"clamp", Clamp(ETC(), 1, 4096).(Distribution)},
	}
}

// manyWeights is 1000 sizes with uneven weights.
func manyWeights() []Weight {
	ws := make([]Weight, 1000)
	for i := range ws {
		ws[i] = Weight{Size: 16 * (i + 1), Weight: float64(1 + (i*7919)%97)}
	}
	return ws
}

func draw(g Generator, r *rand.Rand, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = g.Next(r)
	}
	return out
}

// ksD is the Kolmogorov-Smirnov distance between the sample and d: the
// largest gap between the empirical and the exact CDF. Both are step
// functions on the integers, so the supremum is at a drawn size or just
// below one, and both are checked for every distinct size drawn.
func ksD(d Distribution, xs []int) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	n := float64(len(xs))
	var dmax float64
	for i := 0; i < len(xs); {
		j := i
		for j < len(xs) && xs[j] == xs[i] {
			j++
		}
		dmax = max(dmax, math.Abs(float64(j)/n-d.CDF(xs[i])), math.Abs(float64(i)/n-d.CDF(xs[i]-1)))
		i = j
	}
	return dmax
}

// 10^6 draws from the distribution itself give D around 0.9/sqrt(10^6) =
// 0.0009 (P(D > 0.002) is about 1e-3); 0.01 leaves room only for a
// generator that follows its law. The seed is fixed.
func TestKolmogorovSmirnov(t *testing.T) {
	const draws = 1_000_000
	for i, c := range dists() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			xs := draw(c.d, newRand(uint64(i)), draws)
			d := ksD(c.d, xs)
			t.Logf("%s: D = %.5f", c.name, d)
			if d >= 0.01 {
				t.Fatalf("Kolmogorov-Smirnov D = %.4f over %d draws, want < 0.01", d, draws)
			}
		})
	}
}

// A wrong CDF must fail the test above: the ETC value sizes with the
// paper's location 0 in place of mutilate's 15 are far off.
func TestKolmogorovSmirnovRejects(t *testing.T) {
	paper := must(NewGPD(0, etcScale, etcShape))
	xs := draw(paper, newRand(1), 100_000)
	if d := ksD(must(NewGPD(etcLocation, etcScale, etcShape)), xs); d < 0.01 {
		t.Fatalf("D = %.4f between location 0 and 15, want a clear rejection", d)
	}
}

func TestBounds(t *testing.T) {
	for i, c := range dists() {
		d := c.d
		lo, hi := d.Min(), d.Max()
		if lo > hi || lo < 0 {
			t.Errorf("%s: Min %d, Max %d", c.name, lo, hi)
		}
		if d.CDF(lo-1) != 0 || d.CDF(lo) <= 0 || d.CDF(hi) != 1 {
			t.Errorf("%s: CDF(Min-1) = %v, CDF(Min) = %v, CDF(Max) = %v; want 0, > 0, 1", c.name, d.CDF(lo-1), d.CDF(lo), d.CDF(hi))
		}
		for _, x := range draw(d, newRand(uint64(100+i)), 100_000) {
			if x < lo || x > hi {
				t.Fatalf("%s: drew %d outside [%d, %d]", c.name, x, lo, hi)
			}
		}
	}
}

func TestDeterministicPerSeed(t *testing.T) {
	for _, c := range dists() {
		a, b := draw(c.d, newRand(9), 1000), draw(c.d, newRand(9), 1000)
		if !slices.Equal(a, b) {
			t.Errorf("%s: the same seed gave different sizes", c.name)
		}
		if slices.Equal(a, draw(c.d, newRand(10), 1000)) {
			t.Errorf("%s: another seed gave the same sizes", c.name)
		}
	}
}

// The sample mean of 10^6 draws is within 5 standard errors of Mean for
// the laws of finite variance.
func TestMeanMatchesSample(t *testing.T) {
	const draws = 1_000_000
	for i, c := range dists() {
		if c.name == "gpd/heavy" {
			continue // infinite variance, and mean; see TestMeanExact
		}
		xs := draw(c.d, newRand(uint64(200+i)), draws)
		var sum, sq float64
		for _, x := range xs {
			sum += float64(x)
			sq += float64(x) * float64(x)
		}
		mean := sum / draws
		se := math.Sqrt((sq/draws - mean*mean) / draws)
		if got := c.d.Mean(); math.Abs(got-mean) > 5*se+1e-9 {
			t.Errorf("%s: Mean %.3f, sample mean %.3f +- %.3f", c.name, got, mean, se)
		}
	}
}

// Mean sums the first sizes and integrates the rest; summing every size
// one by one gives the same to 1e-9.
func TestMeanExact(t *testing.T) {
	brute := func(d Distribution) float64 {
		m := float64(d.Min())
		for k := d.Min(); k < d.Max(); k++ {
			m += 1 - d.CDF(k)
		}
		return m
	}
	cases := []namedDist{
		{"etc below 4MiB", Clamp(ETC(), 1, 4<<20).(Distribution)},
		{"gpd/heavy below 1MiB", Clamp(must(NewGPD(1, 10, 1.5)), 1, 1<<20).(Distribution)},
		{"gpd/bounded", must(NewGPD(0, 1e6, -0.5))},
		{"uniform", must(NewUniform(1000, 3_000_000))},
		{"etc_key", ETCKey()},
	}
	for _, c := range cases {
		want, got := brute(c.d), c.d.Mean()
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: Mean %.12g, summed %.12g", c.name, got, want)
		}
	}
	u := must(NewUniform(1, math.MaxInt))
	if got, want := u.Mean(), (1+float64(math.MaxInt))/2; math.Abs(got-want) > 1e-9*want {
		t.Errorf("uniform to MaxInt: Mean %g, want %g", got, want)
	}
	// The generalized Pareto mean is mu + sigma/(1-xi); the integer part
	// loses about half a byte.
	if got, want := must(NewGPD(etcLocation, etcScale, etcShape)).Mean(), etcLocation+etcScale/(1-etcShape)-0.5; math.Abs(got-want) > 0.01 {
		t.Errorf("gpd: Mean %.4f, want about %.4f", got, want)
	}
}

func TestWeightedFrequencies(t *testing.T) {
	const draws = 1_000_000
	for _, ws := range [][]Weight{
		{{64, 70}, {4096, 20}, {65536, 10}},
		{{1, 1}},
		{{10, 1e-3}, {20, 1}, {30, 1e3}},
		manyWeights(),
	} {
		g := must(NewWeighted(ws))
		var total float64
		for _, w := range ws {
			total += w.Weight
		}
		counts := map[int]float64{}
		for _, x := range draw(g, newRand(3), draws) {
			counts[x]++
		}
		for _, w := range ws {
			p := w.Weight / total
			if got := Mass(g, w.Size); math.Abs(got-p) > 1e-12 {
				t.Errorf("Mass(%d) = %v, want %v", w.Size, got, p)
			}
			sd := math.Sqrt(draws * p * (1 - p))
			if d := math.Abs(counts[w.Size] - draws*p); d > 5*sd+1e-9 {
				t.Errorf("size %d of %d: drawn %v times, want %.0f +- %.1f", w.Size, len(ws), counts[w.Size], draws*p, 5*sd)
			}
		}
		if len(counts) > len(ws) {
			t.Errorf("drew %d distinct sizes from a list of %d", len(counts), len(ws))
		}
	}
}

func TestWeightedMergesAndRejects(t *testing.T) {
	g := must(NewWeighted([]Weight{{100, 1}, {50, 0}, {100, 2}, {10, 1}}))
	sizes, probs := g.Sizes()
	if !slices.Equal(sizes, []int{10, 100}) || math.Abs(probs[1]-0.75) > 1e-15 {
		t.Fatalf("sizes %v probs %v, want [10 100] [0.25 0.75]", sizes, probs)
	}
	for _, ws := range [][]Weight{nil, {{10, 0}}, {{-1, 1}}, {{1, -1}}, {{1, math.NaN()}}, {{1, math.Inf(1)}}, {{1, math.MaxFloat64}, {2, math.MaxFloat64}}} {
		if _, err := NewWeighted(ws); err == nil {
			t.Errorf("NewWeighted(%v) accepted", ws)
		}
	}
}

func TestConstructorsReject(t *testing.T) {
	errs := []error{
		second(NewUniform(-1, 10)), second(NewUniform(10, 9)),
		second(NewGPD(-1, 1, 0)), second(NewGPD(0, 0, 0)), second(NewGPD(0, math.Inf(1), 0)), second(NewGPD(0, 1, math.NaN())),
		second(NewGEV(0, -1, 0)), second(NewGEV(math.Inf(-1), 1, 0)),
	}
	for i, err := range errs {
		if err == nil {
			t.Errorf("case %d accepted", i)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// The ETC head and tail are mutilate's fb_value: P(2 bytes) = 0.17820,
// the head holds 0.44155, the tail starts at 15 bytes.
func TestETCIsMutilates(t *testing.T) {
	g := ETC()
	if got := Mass(g, 2); math.Abs(got-0.17820) > 1e-12 {
		t.Errorf("P(2) = %v, want 0.17820", got)
	}
	if got := g.CDF(14); math.Abs(got-0.44155) > 1e-12 {
		t.Errorf("P(<= 14) = %v, want 0.44155", got)
	}
	if got := g.tail.Min(); got != 15 {
		t.Errorf("the tail starts at %d, want 15", got)
	}
	// The mean of fb_value: the head's, plus the tail's mu + sigma/(1-xi)
	// less about half a byte for the integer part.
	var head float64
	for k, p := range etcHead {
		head += float64(k) * p
	}
	want := head + (1-0.44155)*(etcLocation+etcScale/(1-etcShape)-0.5)
	if got := g.Mean(); math.Abs(got-want) > 0.01 {
		t.Errorf("mean %.4f, want about %.4f", got, want)
	}
	// The GEV mean is mu + sigma*(Gamma(1-xi)-1)/xi; rounding keeps it.
	want = etcKeyLocation + etcKeyScale*(math.Gamma(1-etcKeyShape)-1)/etcKeyShape
	if got := ETCKey().Mean(); math.Abs(got-want) > 0.01 {
		t.Errorf("key mean %.4f, want about %.4f", got, want)
	}
}

func TestClamp(t *testing.T) {
	etc := ETC()
	c := Clamp(etc, 1, 4096).(Distribution)
	if got, want := Mass(c, 1), Mass(etc, 0)+Mass(etc, 1); math.Abs(got-want) > 1e-15 {
		t.Errorf("P(1) = %v, want P(0)+P(1) = %v", got, want)
	}
	if got, want := Mass(c, 4096), 1-etc.CDF(4095); math.Abs(got-want) > 1e-15 {
		t.Errorf("P(4096) = %v, want P(>= 4096) = %v", got, want)
	}
	if c.Min() != 1 || c.Max() != 4096 {
		t.Errorf("Min %d, Max %d, want 1, 4096", c.Min(), c.Max())
	}
	for _, x := range draw(c, newRand(4), 100_000) {
		if x < 1 || x > 4096 {
			t.Fatalf("drew %d", x)
		}
	}
	// min below 1 counts as 1, max below min as min.
	if c := Clamp(etc, -5, 0).(Distribution); c.Min() != 1 || c.Max() != 1 || c.Mean() != 1 {
		t.Errorf("Clamp(-5, 0): Min %d Max %d Mean %v, want 1 1 1", c.Min(), c.Max(), c.Mean())
	}
	// Clamps compose: to the intersection, or to one size when disjoint.
	for _, k := range []struct {
		lo1, hi1, lo2, hi2 int
		lo, hi             int
	}{{1, 4096, 100, 1 << 20, 100, 4096}, {1, 50, 100, 200, 100, 100}, {300, 400, 100, 200, 200, 200}} {
		twice := Clamp(Clamp(etc, k.lo1, k.hi1), k.lo2, k.hi2).(Distribution)
		once := Clamp(etc, k.lo, k.hi).(Distribution)
		if math.Abs(twice.Mean()-once.Mean()) > 1e-9*once.Mean() || twice.Min() != once.Min() || twice.Max() != once.Max() {
			t.Errorf("%+v: Mean %v Min %d Max %d, want %v %d %d", k, twice.Mean(), twice.Min(), twice.Max(), once.Mean(), once.Min(), once.Max())
		}
	}
	// A plain Generator is clamped too, but has no law to state.
	f := Clamp(Func(func(r *rand.Rand) int { return r.IntN(100) - 50 }), 0, 10)
	if _, ok := f.(Distribution); ok {
		t.Error("a clamped Func claims a Distribution")
	}
	for _, x := range draw(f, newRand(5), 1000) {
		if x < 1 || x > 10 {
			t.Fatalf("clamped Func drew %d", x)
		}
	}
}

func TestNextDoesNotAllocate(t *testing.T) {
	r := newRand(6)
	for _, c := range dists() {
		if a := testing.AllocsPerRun(10_000, func() { c.d.Next(r) }); a != 0 {
			t.Errorf("%s: %v allocations per Next", c.name, a)
		}
	}
}

func BenchmarkNext(b *testing.B) {
	for _, c := range dists() {
		if strings.Contains(c.name, "/") {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			r := newRand(7)
			var sink int
			for b.Loop() {
				sink += c.d.Next(r)
			}
			_ = sink
		})
	}
}

// inv is the law's inversion, which GPDGen, GEVGen and ETCGen embed.
func (d *inverted) inv() *inverted { return d }

// The guide answers exactly as inversion would: at both ends of each
// slice, on either side of a precomputed step, and at random uniforms.
func TestGuideMatchesInversion(t *testing.T) {
	r := newRand(9)
	for _, nd := range dists() {
		d, ok := Unclamped(nd.d).(interface{ inv() *inverted })
		if !ok {
			continue
		}
		inv := d.inv()
		check := func(k uint64) {
			u := uniform(k)
			if got, want := inv.guide.size(u, inv.size), inv.size(u); got != want {
				t.Fatalf("%s: u = %v: guide gives %d, inversion %d", nd.name, u, got, want)
			}
		}
		var steps int
		for j := range uint64(guideSize) {
			check(j << sliceBits)
			check((j+1)<<sliceBits - 1)
			if inv.guide.at[j] < -1 {
				steps++
				k := uint64(inv.guide.cut[j] * 0x1p53)
				check(k - 1)
				check(k)
			}
		}
		for range 10000 {
			check(r.Uint64() >> 11)
		}
		if steps == 0 && nd.name == "etc" {
			t.Errorf("%s: no slice steps by one byte", nd.name)
		}
	}
}
