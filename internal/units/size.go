package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Size units. Binary units (KiB, MiB, GiB, TiB) are powers of 1024; the
// decimal SI units (KB, MB, GB, TB) are powers of 1000, so "4KB" is 4000
// bytes, not 4096. Unit letters are case-insensitive.
var sizeUnits = map[string]int64{
	"b":   1,
	"kb":  1000,
	"mb":  1000 * 1000,
	"gb":  1000 * 1000 * 1000,
	"tb":  1000 * 1000 * 1000 * 1000,
	"kib": 1 << 10,
	"mib": 1 << 20,
	"gib": 1 << 30,
	"tib": 1 << 40,
}

// ParseBytes reads a byte count: a plain integer ("4096") or an integer
// followed by a unit ("64B", "4KiB", "1MiB", "4KB" = 4000), as workloads,
// kvserver's flags and kvbench's take it. Fractions are not accepted. A
// leading minus sign parses, so that validation can say the size is
// negative rather than malformed.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	if i < len(t) && (t[i] == '-' || t[i] == '+') {
		i++
	}
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	if num == "" || num == "-" || num == "+" {
		return 0, fmt.Errorf("invalid size %q: want an integer with an optional unit (B, KiB, MiB, GiB, KB, MB, GB)", s)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: %v", s, err.(*strconv.NumError).Err)
	}
	mult := int64(1)
	if strings.HasPrefix(unit, ".") {
		return 0, fmt.Errorf("invalid size %q: want a whole number of units, not a fraction", s)
	}
	if unit != "" {
		m, ok := sizeUnits[unit]
		if !ok {
			return 0, fmt.Errorf("invalid size %q: unknown unit %q (want B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)", s, t[i:])
		}
		mult = m
	}
	if n > math.MaxInt64/mult || n < math.MinInt64/mult {
		return 0, fmt.Errorf("invalid size %q: out of range", s)
	}
	return n * mult, nil
}

// ExactBytes writes n in the largest binary unit that divides it exactly,
// so that ParseBytes reads it back: 4096 is "4KiB", 1000 is "1000B".
// Bytes, for tables, rounds instead.
func ExactBytes(n int64) string {
	for _, u := range []struct {
		name string
		n    int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
