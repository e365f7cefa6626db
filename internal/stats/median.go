package stats

import "slices"

// Median is the middle of v, the mean of the two middle values when
// their number is even; 0 when v is empty. v is left as it is.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return middle(slices.Sorted(slices.Values(v)))
}

// Spread is v's median with its range: what a handful of runs show when
// they are too few for an interval.
func Spread(v []float64) Interval {
	if len(v) == 0 {
		return Interval{}
	}
	s := slices.Sorted(slices.Values(v))
	return Interval{Est: middle(s), Lo: s[0], Hi: s[len(s)-1]}
}

// middle is the median of the sorted, non-empty s.
func middle(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
