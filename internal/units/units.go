// Package units formats the quantities kvbench prints (bytes, durations,
// rates) and names cells, the same way in every table, plot and message.
package units

import (
	"math"
	"strconv"
)

// Bytes formats a byte count with binary units: 64B, 4KiB, 1.5MiB. Exact
// multiples print without a fraction so that sweep sizes read the way they
// were written in the workload.
func Bytes(n int64) string {
	if n < 0 {
		return "-" + Bytes(-n)
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	v := float64(n)
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return trimFloat(v, 2) + units[i]
}

// Duration formats nanoseconds with three significant digits in the unit
// that keeps the number between 1 and 1000: 850ns, 1.25µs, 12.3ms.
func Duration(ns float64) string {
	if math.IsNaN(ns) || math.IsInf(ns, 0) {
		return "-"
	}
	if ns < 0 {
		return "-" + Duration(-ns)
	}
	units := []struct {
		div  float64
		name string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}, {1, "ns"}}
	for _, u := range units {
		if ns >= u.div || u.div == 1 {
			return sig3(ns/u.div) + u.name
		}
	}
	return "0ns"
}

// Rate formats a per-second quantity with an SI suffix: 950, 12.3k, 1.45M.
func Rate(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	switch a := math.Abs(v); {
	case a >= 1e9:
		return sig3(v/1e9) + "G"
	case a >= 1e6:
		return sig3(v/1e6) + "M"
	case a >= 1e3:
		return sig3(v/1e3) + "k"
	}
	return sig3(v)
}

// MiB formats bytes per second as MiB/s with three significant digits.
func MiB(bytesPerSec float64) string {
	return sig3(bytesPerSec / (1 << 20))
}

// sig3 prints three significant digits without exponent notation.
func sig3(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return trimFloat(v, 1)
	case a >= 1:
		return trimFloat(v, 2)
	}
	return trimFloat(v, 3)
}

// trimFloat prints v with at most prec decimals and no trailing zeros.
func trimFloat(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	for len(s) > 1 && prec > 0 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if len(s) > 0 && s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
