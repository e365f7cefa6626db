package stats

import "math"

// Settled reports whether the series xs, in time order, has stopped
// trending: the median of its later half is within tol (a fraction) of
// the median of its earlier half, relative to the earlier one. Medians of
// halves, rather than the ends, let one noisy point neither hold a series
// back nor settle it early. A series of fewer than two points, or whose
// earlier median is not positive, has not settled.
func Settled(xs []float64, tol float64) bool {
	if len(xs) < 2 {
		return false
	}
	h := len(xs) / 2
	early, late := Median(xs[:h]), Median(xs[len(xs)-h:])
	return early > 0 && math.Abs(late-early) <= tol*early
}
