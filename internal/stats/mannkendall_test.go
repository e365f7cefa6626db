package stats

import (
	"math"
	"testing"
)

func TestMannKendallKnownValues(t *testing.T) {
	near := func(got, want, tol float64) bool { return math.Abs(got-want) <= tol }
	// 1..10 rising: every one of the 45 pairs rises, Var(S) =
	// 10·9·25/18 = 125, Z = 44/√125 = 3.9355, p = 8.303e-5.
	up := MannKendall([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	if up.S != 45 || !near(up.Z, 3.93548, 1e-4) || !near(up.P, 8.3031e-5, 1e-8) || up.Slope != 1 {
		t.Errorf("rising 1..10: %+v", up)
	}
	down := MannKendall([]float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1})
	if down.S != -45 || !near(down.Z, -3.93548, 1e-4) || down.P != up.P || down.Slope != -1 {
		t.Errorf("falling 10..1: %+v", down)
	}
	// Ties: three 4s and two 8s take (3·2·11 + 2·1·9)/18 from the
	// variance, 2166/18 = 120.33; S = 27, Z = 26/√120.33 = 2.3702,
	// p = 0.01778.
	tied := MannKendall([]float64{5, 3, 4, 4, 6, 7, 4, 8, 9, 8})
	if tied.S != 27 || !near(tied.Z, 2.37017, 1e-4) || !near(tied.P, 0.017780, 1e-5) {
		t.Errorf("tied: %+v", tied)
	}
	// No trend: a symmetric zig-zag scores 0.
	if flat := MannKendall([]float64{1, 3, 2, 2, 3, 1}); flat.S != 0 || flat.P != 1 {
		t.Errorf("zig-zag: %+v", flat)
	}
	if c := MannKendall([]float64{4, 4, 4, 4, 4}); c.P != 1 || c.Slope != 0 {
		t.Errorf("constant: %+v", c)
	}
	if short := MannKendall([]float64{1, 2}); short.P != 1 {
		t.Errorf("two values: %+v", short)
	}
}

func TestSenSlopeIgnoresOneOutlier(t *testing.T) {
	xs := []float64{0, 2, 4, 6, 1000, 10, 12, 14, 16}
	if s := SenSlope(xs); s != 2 {
		t.Errorf("SenSlope = %g, want 2", s)
	}
	if s := SenSlope([]float64{7}); s != 0 {
		t.Errorf("one value: %g", s)
	}
}
