package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// The values scipy.stats.spearmanr and scipy.stats.t give.
func TestSpearmanKnownValues(t *testing.T) {
	rho, p := Spearman([]float64{1, 2, 3, 4, 5}, []float64{5, 6, 7, 8, 7})
	if !near(rho, 0.8207826816681233, 1e-12) || !near(p, 0.08858700531354381, 1e-9) {
		t.Errorf("rho %v p %v, want 0.82078 and 0.088587", rho, p)
	}
	if p := StudentTP(2, 10); !near(p, 0.07338803477074598, 1e-9) {
		t.Errorf("t=2, 10 df: p %v, want 0.0733880", p)
	}
	if p := StudentTP(0, 7); !near(p, 1, 1e-12) {
		t.Errorf("t=0: p %v, want 1", p)
	}
	if rho, p := Spearman([]float64{1, 2, 3, 4}, []float64{40, 30, 20, 10}); rho != -1 || p != 0 {
		t.Errorf("reversed: rho %v p %v, want -1 and 0", rho, p)
	}
	if rho, p := Spearman([]float64{1, 2, 3}, []float64{7, 7, 7}); rho != 0 || p != 1 {
		t.Errorf("constant side: rho %v p %v, want 0 and 1", rho, p)
	}
}

// Independent draws give a small rho and no significance; a series that
// follows itself (AR(1), 0.8) gives a large, significant one.
func TestSpearmanLagOne(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	iid, ar := make([]float64, 2001), make([]float64, 2001)
	for i := range iid {
		iid[i] = r.ExpFloat64()
		if i > 0 {
			ar[i] = 0.8*ar[i-1] + r.NormFloat64()
		}
	}
	if rho, p := Spearman(iid[:2000], iid[1:]); math.Abs(rho) > 0.1 || p < 0.01 {
		t.Errorf("independent: rho %v p %v", rho, p)
	}
	if rho, p := Spearman(ar[:2000], ar[1:]); rho < 0.7 || p > 1e-6 {
		t.Errorf("AR(1) 0.8: rho %v p %v", rho, p)
	}
}
