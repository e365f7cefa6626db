package stats

import "testing"

func TestSettled(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		want bool
	}{
		{"flat", []float64{100, 100, 100, 100, 100, 100}, true},
		{"noisy but flat", []float64{100, 104, 98, 103, 97, 101}, true},
		{"falling", []float64{200, 180, 160, 140, 120, 100}, false},
		{"falling then flat", []float64{150, 100, 100, 100, 100, 100}, true},
		{"one spike late", []float64{100, 100, 100, 100, 300, 100}, true},
		{"rising", []float64{100, 100, 100, 120, 130, 140}, false},
		{"too short", []float64{100}, false},
		{"zeros", []float64{0, 0, 0, 0}, false},
	} {
		if got := Settled(tc.xs, 0.05); got != tc.want {
			t.Errorf("%s: Settled(%v) = %v, want %v", tc.name, tc.xs, got, tc.want)
		}
	}
}
