//go:build linux && cgo

package verbs

import (
	"testing"
	"time"
)

// TestYielderPaces drives Empty with clock readings it makes up, so the
// pacing is checked without timing anything: the first empty burst after
// a quiet spell yields, later ones only once yieldEvery has passed since
// the last yield.
func TestYielderPaces(t *testing.T) {
	var y yielder
	t0 := epoch.Add(time.Hour)
	steps := []struct {
		at   time.Duration
		want bool
	}{
		{0, true},
		{time.Microsecond, false},
		{yieldEvery - time.Nanosecond, false},
		{yieldEvery, true},
		{yieldEvery + yieldEvery/2, false},
		{3 * yieldEvery, true},
		{3*yieldEvery + 1, false},
	}
	for _, s := range steps {
		if got := y.Empty(t0.Add(s.at)); got != s.want {
			t.Fatalf("Empty at +%v = %v, want %v", s.at, got, s.want)
		}
	}
}
