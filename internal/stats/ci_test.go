package stats

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// logNormal records n latencies of median m and log spread sigma, in the
// geometry kvbench's results use.
func logNormal(r *rand.Rand, n int, m, sigma float64) *hdrhistogram.Histogram {
	h := hdrhistogram.New(1, int64(time.Hour), 3)
	for range n {
		_ = h.RecordValue(max(1, int64(m*math.Exp(sigma*r.NormFloat64()))))
	}
	return h
}

func TestQuantileCISmallSamplesOverlap(t *testing.T) {
	// With 60 samples of a broad distribution a 5% shift of the median is
	// inside the noise.
	r := rand.New(rand.NewPCG(9, 9))
	ha, hb := logNormal(r, 60, 10000, 0.4), logNormal(r, 60, 10500, 0.4)
	ia, ib := QuantileCI(ha, 0.5), QuantileCI(hb, 0.5)
	if !ia.Overlaps(ib) {
		t.Errorf("intervals %+v and %+v do not overlap", ia, ib)
	}
	if !(ia.Lo <= ia.Est && ia.Est <= ia.Hi) || ia.Hi-ia.Lo < 0.05*ia.Est {
		t.Errorf("interval %+v too narrow for 60 samples", ia)
	}
}

func TestQuantileCICoverage(t *testing.T) {
	// The true median of exp(N(0, s)) * m is m: the 95% interval must
	// contain it in roughly 95% of trials.
	r := rand.New(rand.NewPCG(4, 4))
	hit := 0
	const trials = 200
	for range trials {
		iv := QuantileCI(logNormal(r, 400, 100000, 0.3), 0.5)
		if iv.Lo <= 100000 && 100000 <= iv.Hi {
			hit++
		}
	}
	if hit < 180 {
		t.Errorf("coverage %d/%d, want about 95%%", hit, trials)
	}
	if iv := QuantileCI(hdrhistogram.New(1, 1000, 3), 0.5); iv != (Interval{}) {
		t.Errorf("empty histogram: %+v", iv)
	}
}

func TestMeanCI(t *testing.T) {
	// Mean 3, standard deviation sqrt(2.5), t(4) = 2.776.
	iv, ok := MeanCI([]float64{1, 2, 3, 4, 5})
	half := 2.776 * math.Sqrt(2.5) / math.Sqrt(5)
	if !ok || iv.Est != 3 || math.Abs(iv.Lo-(3-half)) > 1e-9 || math.Abs(iv.Hi-(3+half)) > 1e-9 {
		t.Errorf("MeanCI = %+v, %v; want 3 ± %g", iv, ok, half)
	}
	// Beyond the table the normal quantile takes over.
	xs := make([]float64, 50)
	for i := range xs {
		xs[i] = float64(i % 2)
	}
	iv, _ = MeanCI(xs)
	if want := Z95 * math.Sqrt(50.0/4/49) / math.Sqrt(50); math.Abs(iv.Hi-iv.Est-want) > 1e-9 {
		t.Errorf("50 values: half width %g, want %g", iv.Hi-iv.Est, want)
	}
	if _, ok := MeanCI([]float64{1, 2}); ok {
		t.Error("two values gave an interval")
	}
}

func TestOverlaps(t *testing.T) {
	a := Interval{Est: 2, Lo: 1, Hi: 3}
	for _, c := range []struct {
		b    Interval
		want bool
	}{{Interval{Lo: 3, Hi: 4}, true}, {Interval{Lo: 0, Hi: 1}, true}, {Interval{Lo: 1.5, Hi: 2}, true}, {Interval{Lo: 3.1, Hi: 4}, false}, {Interval{Lo: -1, Hi: 0.9}, false}} {
		if a.Overlaps(c.b) != c.want || c.b.Overlaps(a) != c.want {
			t.Errorf("%+v and %+v: overlap %v, want %v", a, c.b, a.Overlaps(c.b), c.want)
		}
	}
}

func BenchmarkQuantileCI(b *testing.B) {
	h := logNormal(rand.New(rand.NewPCG(1, 1)), 100000, 20000, 0.3)
	b.ReportAllocs()
	for b.Loop() {
		QuantileCI(h, 0.99)
	}
}

// Samples worth fewer independent ones give a wider interval around the
// same estimate; worth all of them, QuantileCI's.
func TestQuantileCINWidensWithFewerEffectiveSamples(t *testing.T) {
	h := logNormal(rand.New(rand.NewPCG(5, 5)), 4000, 20000, 0.5)
	full, same := QuantileCI(h, 0.99), QuantileCIN(h, 0.99, 4000)
	if full != same {
		t.Errorf("nEff = n: %+v, QuantileCI %+v", same, full)
	}
	if more := QuantileCIN(h, 0.99, 1e6); more != full {
		t.Errorf("nEff above n: %+v, want QuantileCI's %+v", more, full)
	}
	quarter := QuantileCIN(h, 0.99, 1000)
	if quarter.Est != full.Est || quarter.Lo >= full.Lo || quarter.Hi <= full.Hi {
		t.Errorf("nEff = n/4: %+v, not wider than %+v", quarter, full)
	}
}

func TestEffectiveN(t *testing.T) {
	for _, c := range []struct{ rho, want float64 }{{0, 900}, {-0.5, 900}, {0.5, 300}, {0.8, 100}} {
		if got := EffectiveN(900, c.rho); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("EffectiveN(900, %g) = %g, want %g", c.rho, got, c.want)
		}
	}
}
