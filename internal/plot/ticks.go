package plot

import (
	"math"
	"strconv"

	"github.com/kvbench/kvbench/internal/units"
	gplot "gonum.org/v1/plot"
)

// maxLabels bounds labelled ticks so labels never collide at 800px.
const maxLabels = 9

// byteAxis makes a log2 axis over [min, max] bytes with ticks on powers of
// two labelled 64B, 1KiB, ...; when there are too many, every 2nd, 5th or
// 10th power is labelled (so KiB and MiB stay labelled where possible) and
// the rest are unlabelled minor ticks.
func byteAxis(a *gplot.Axis, min, max float64) {
	lo := math.Floor(math.Log2(min))
	hi := math.Ceil(math.Log2(max))
	if hi-lo < 2 {
		// One or two sizes: widen so the points sit inside the axis.
		lo, hi = math.Max(0, lo-1), hi+1
	}
	a.Scale = gplot.LogScale{}
	a.Min, a.Max = math.Exp2(lo), math.Exp2(hi)
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10} {
		step = s
		if (hi-lo)/s+1 <= maxLabels {
			break
		}
	}
	var ticks []gplot.Tick
	for e := lo; e <= hi; e++ {
		t := gplot.Tick{Value: math.Exp2(e)}
		if math.Mod(e, step) == 0 {
			t.Label = units.Bytes(int64(t.Value))
		}
		ticks = append(ticks, t)
	}
	a.Tick.Marker = gplot.ConstantTicks(ticks)
}

// logAxis makes a base-10 log axis over [min, max] with labels from format.
// The range is widened to the enclosing 1-2-5 values so at least two
// labels show; decades are labelled, and 2 and 5 too when the axis spans
// less than three decades.
func logAxis(a *gplot.Axis, min, max float64, format func(float64) string) {
	// Keep the range finite with room for one more 1-2-5 step, so the tick
	// loop below always ends.
	const lim = 1e300
	min = math.Min(math.Max(min, 1/lim), lim)
	max = math.Min(math.Max(max, min), lim)
	// The 2% margin keeps a line that sits exactly on a 1-2-5 value (a
	// flat timeline, say) off the frame, where it would vanish.
	lo, hi := nice125Below(min/1.02), nice125Above(max*1.02)
	if hi <= lo {
		hi = nice125Above(lo * 1.01)
	}
	a.Scale = gplot.LogScale{}
	a.Min, a.Max = lo, hi
	decades := math.Log10(hi / lo)
	if decades < 1 {
		// Less than a decade (a steady timeline, say): the 1-2-5 ticks
		// alone would leave a line between two far labels, so every
		// multiple of the decade is labelled, and half steps when that
		// still gives fewer than three.
		a.Tick.Marker = gplot.ConstantTicks(narrowTicks(lo, hi, format))
		return
	}
	// Label every k-th decade so that at most maxLabels labels show; minor
	// ticks only while they stay readable.
	every := int(math.Max(1, math.Ceil(decades/maxLabels)))
	var ticks []gplot.Tick
	first := int(math.Floor(math.Log10(lo)))
	for e := first; float64(e) <= math.Log10(hi)+1e-9; e++ {
		d := math.Pow10(e)
		for m := 1; m < 10; m++ {
			v := d * float64(m)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) || (m > 1 && decades > 2*maxLabels) {
				continue
			}
			t := gplot.Tick{Value: v}
			if (m == 1 && (e-first)%every == 0) || (decades < 3 && (m == 2 || m == 5)) {
				t.Label = format(v)
			}
			ticks = append(ticks, t)
		}
	}
	a.Tick.Marker = gplot.ConstantTicks(ticks)
}

// narrowTicks labels the multiples of the decade, or of half of it, that
// lie in [lo, hi].
func narrowTicks(lo, hi float64, format func(float64) string) []gplot.Tick {
	var ticks []gplot.Tick
	for _, step := range []float64{1, 0.5} {
		ticks = ticks[:0]
		for e := math.Floor(math.Log10(lo)); math.Pow(10, e) <= hi*(1+1e-9); e++ {
			d := math.Pow(10, e)
			for m := 1.0; m < 10-1e-9; m += step {
				if v := d * m; v >= lo*(1-1e-9) && v <= hi*(1+1e-9) {
					ticks = append(ticks, gplot.Tick{Value: v, Label: format(v)})
				}
			}
		}
		if len(ticks) >= 3 {
			break
		}
	}
	return ticks
}

func nice125Below(v float64) float64 {
	d := math.Pow10(int(math.Floor(math.Log10(v))))
	for _, m := range []float64{5, 2, 1} {
		if d*m <= v*(1+1e-9) {
			return d * m
		}
	}
	return d
}

func nice125Above(v float64) float64 {
	d := math.Pow10(int(math.Floor(math.Log10(v))))
	for _, m := range []float64{1, 2, 5, 10} {
		if d*m >= v*(1-1e-9) {
			return d * m
		}
	}
	return d * 10
}

// percentileAxis makes the HdrHistogram x axis: x = 1/(1-p) on a log
// scale, so each decade is one more nine: 0%, 90%, 99%, 99.9%, ...
func percentileAxis(a *gplot.Axis, maxX float64) {
	nines := math.Max(1, math.Ceil(math.Log10(maxX)))
	a.Scale = gplot.LogScale{}
	a.Min, a.Max = 1, math.Pow10(int(nines))
	var ticks []gplot.Tick
	for k := 0; k <= int(nines); k++ {
		d := math.Pow10(k)
		ticks = append(ticks, gplot.Tick{Value: d, Label: PercentileLabel(k)})
		if k < int(nines) {
			for m := 2; m < 10; m++ {
				ticks = append(ticks, gplot.Tick{Value: d * float64(m)})
			}
		}
	}
	a.Tick.Marker = gplot.ConstantTicks(ticks)
}

// PercentileLabel names the percentile with k nines: 0%, 90%, 99%, 99.9%.
func PercentileLabel(k int) string {
	switch k {
	case 0:
		return "0%"
	case 1:
		return "90%"
	case 2:
		return "99%"
	}
	s := "99."
	for i := 2; i < k; i++ {
		s += "9"
	}
	return s + "%"
}

func durationLabel(v float64) string { return units.Duration(v) }
func rateLabel(v float64) string     { return units.Rate(v) }
func mibLabel(v float64) string      { return units.MiB(v * (1 << 20)) }

// secondTicks labels a time axis in whole seconds (0s, 1s, ...), thinning
// to a round step so at most about ten labels show.
type secondTicks struct{}

func (secondTicks) Ticks(min, max float64) []gplot.Tick {
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600} {
		step = s
		if (max-min)/s <= 10 {
			break
		}
	}
	var ticks []gplot.Tick
	for v := math.Ceil(min/step) * step; v <= max+1e-9; v += step {
		ticks = append(ticks, gplot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64) + "s"})
	}
	return ticks
}
