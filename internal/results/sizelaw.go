package results

import (
	"fmt"
	"math"

	"github.com/kvbench/kvbench/internal/units"
)

// WarnSizesOffLaw: the value sizes a cell's op sent do not follow the
// distribution the workload asked for (SizesOffLaw).
const WarnSizesOffLaw = "sizes_off_law"

// The verdict of SizesOffLaw: a chi-square test of the sizes sent, by
// class, against the law's classes must reject at SizesAlpha, and the
// law and the sizes must also differ by at least SizesMinShift in total
// variation (the share of sends that would have to change class). The
// test alone would flag, in a run of millions, a clamp that moves one
// send in a hundred thousand; the shift alone would flag the noise of a
// short run. Draws are pure functions of (seed, key, version), so an
// unclamped law fails the test at about the rate SizesAlpha.
const (
	SizesAlpha    = 1e-3
	SizesMinShift = 0.01
	// sizesMinExpected is the least expected count of a class tested
	// alone; classes expected fewer times are pooled into one, the
	// classes above 1 GiB with them.
	sizesMinExpected = 5
)

// SizesOffLaw warns when the sizes a mixed cell's op sent (m.Classes)
// differ from its law (m.Law), as the constants above decide. The usual
// cause is the workload's max or min: a law clamped to them sends the
// mass beyond at the clamp. No verdict without a law.
func SizesOffLaw(m *SizeMix) (Warning, bool) {
	if m == nil || len(m.Law) == 0 {
		return Warning{}, false
	}
	var n int64
	for k, c := range m.Classes {
		if k > 0 {
			n += c
		}
	}
	if n == 0 {
		return Warning{}, false
	}
	chi, df, shift, worst := sizesChiSquare(m, float64(n))
	if df < 1 || shift < SizesMinShift || chiSquareTail(chi, df) >= SizesAlpha {
		return Warning{}, false
	}
	return Warning{Kind: WarnSizesOffLaw, Message: fmt.Sprintf(
		"sizes off the law: %.1f%% of %d values sent are in other classes than the distribution puts them, most in (%s, %s] (chi-square %.0f on %d df; a max or min clamp is the usual cause)",
		100*shift, n, units.Bytes(worst/2), units.Bytes(worst), chi, df)}, true
}

// sizesChiSquare is Pearson's statistic of the classes against the law
// over n sends, its degrees of freedom, the total variation distance,
// and the class whose share the law misses most.
func sizesChiSquare(m *SizeMix, n float64) (chi float64, df int, shift float64, worst int64) {
	var poolO, poolE, worstD float64
	bins := 0
	rest := 1.0
	for k := int64(1); k <= 1<<MaxClassLog; k <<= 1 {
		p, o := m.Law[k], float64(m.Classes[k])
		rest -= p
		d := math.Abs(o/n - p)
		shift += d
		if d > worstD {
			worstD, worst = d, k
		}
		if e := p * n; e >= sizesMinExpected {
			chi += (o - e) * (o - e) / e
			bins++
		} else {
			poolO, poolE = poolO+o, poolE+e
		}
	}
	rest = max(rest, 0)
	shift, poolE = (shift+rest)/2, poolE+rest*n
	switch {
	case poolE > 0:
		chi += (poolO - poolE) * (poolO - poolE) / poolE
		bins++
	case poolO > 0:
		chi = math.Inf(1) // sends where the law puts none
		bins++
	}
	return chi, bins - 1, shift, worst
}

// chiSquareTail is P(X >= x) for X chi-square with df degrees of freedom,
// by the Wilson-Hilferty cube-root normal approximation: within a few
// percent of the exact tail around SizesAlpha for every df.
func chiSquareTail(x float64, df int) float64 {
	if math.IsInf(x, 1) {
		return 0
	}
	k := float64(df)
	v := 2 / (9 * k)
	z := (math.Cbrt(x/k) - (1 - v)) / math.Sqrt(v)
	return 0.5 * math.Erfc(z/math.Sqrt2)
}
