package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func uniformCDF(x float64) float64 { return min(max(x, 0), 1) }

func TestKSKnownValues(t *testing.T) {
	// D+ = 1 - 0.7, above D- = 0.1 - 0.
	if d, _ := KS([]float64{0.7, 0.1, 0.4}, uniformCDF); !near(d, 0.3, 1e-12) {
		t.Errorf("D %v, want 0.3", d)
	}
	// The Kolmogorov distribution's 5% and 1% points, 1.3581 and 1.6276,
	// where the finite-sample correction no longer matters.
	for _, c := range []struct{ l, p float64 }{{1.3581, 0.05}, {1.6276, 0.01}, {0.5, 0.9639}} {
		if p := kolmogorovP(c.l/1e6, 1e12); !near(p, c.p, 1e-4) {
			t.Errorf("Q(%v) = %v, want %v", c.l, p, c.p)
		}
	}
	if d, _ := KS2([]float64{1, 2, 3, 4}, []float64{3, 4, 5, 6}); !near(d, 0.5, 1e-12) {
		t.Errorf("two-sample D %v, want 0.5", d)
	}
	if d, p := KS2([]float64{1, 2, 3}, []float64{1, 2, 3}); d != 0 || p != 1 {
		t.Errorf("same samples: D %v p %v", d, p)
	}
}

// Draws from the law pass its test; draws from another fail it.
func TestKSDecides(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	u, e := make([]float64, 1000), make([]float64, 1000)
	for i := range u {
		u[i], e[i] = r.Float64(), r.ExpFloat64()
	}
	expCDF := func(x float64) float64 { return 1 - math.Exp(-max(x, 0)) }
	if d, p := KS(e, expCDF); p < 0.01 || d > 0.06 {
		t.Errorf("exponential draws against their law: D %v p %v", d, p)
	}
	if d, p := KS(u, expCDF); p > 1e-6 || d < 0.2 {
		t.Errorf("uniform draws against an exponential: D %v p %v", d, p)
	}
	if _, p := KS2(u[:500], u[500:]); p < 0.01 {
		t.Errorf("two halves of one sample: p %v", p)
	}
	if _, p := KS2(u, e); p > 1e-6 {
		t.Errorf("uniform against exponential: p %v", p)
	}
}
