package stats

import (
	"math"
	"testing"
)

func TestMannWhitney(t *testing.T) {
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-9 }
	lo, hi := []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}
	// Complete separation of 5 and 5: 2 of the C(10,5) = 252 splits are as
	// extreme.
	if p := MannWhitney(lo, hi); !near(p, 2.0/252) {
		t.Errorf("separated 5/5: p = %g, want %g", p, 2.0/252)
	}
	if p, q := MannWhitney(lo, hi), MannWhitney(hi, lo); p != q {
		t.Errorf("not symmetric: %g and %g", p, q)
	}
	if p := MannWhitney([]float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 8, 10}); p < 0.5 {
		t.Errorf("interleaved: p = %g, want large", p)
	}
	// All tied: nothing to tell apart.
	if p := MannWhitney([]float64{5, 5, 5}, []float64{5, 5, 5}); !near(p, 1) {
		t.Errorf("all tied: p = %g", p)
	}
	// Ties across the groups lower the evidence without breaking the test.
	if p := MannWhitney([]float64{1, 2, 3, 5, 5}, []float64{5, 5, 8, 9, 10}); p <= 2.0/252 || p >= 0.2 {
		t.Errorf("separated but for ties: p = %g", p)
	}
	if p := MannWhitney([]float64{1}, hi); p != 1 {
		t.Errorf("one run: p = %g, want 1", p)
	}
	// Beyond the exact limit the normal approximation agrees closely.
	var a, b []float64
	for i := range 15 {
		a, b = append(a, float64(2*i)), append(b, float64(2*i+3))
	}
	if p := MannWhitney(a, b); p < 0.3 || p > 0.8 {
		t.Errorf("15/15 shifted a little: p = %g", p)
	}
}
