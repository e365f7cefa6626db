package stats

import (
	"slices"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{{nil, 0}, {[]float64{7}, 7}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{5, 5, 1, 9}, 5}} {
		in := slices.Clone(c.v)
		if got := Median(c.v); got != c.want {
			t.Errorf("Median(%v) = %g, want %g", c.v, got, c.want)
		}
		if !slices.Equal(in, c.v) {
			t.Errorf("Median reordered its input: %v, was %v", c.v, in)
		}
	}
}

func TestSpread(t *testing.T) {
	if got, want := Spread([]float64{30, 10, 25, 20}), (Interval{Est: 22.5, Lo: 10, Hi: 30}); got != want {
		t.Errorf("Spread = %+v, want %+v", got, want)
	}
	if got := Spread([]float64{4}); got != (Interval{Est: 4, Lo: 4, Hi: 4}) {
		t.Errorf("Spread of one = %+v", got)
	}
	if got := Spread(nil); got != (Interval{}) {
		t.Errorf("Spread of none = %+v", got)
	}
}
