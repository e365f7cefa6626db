package units

import "strings"

// Sizes formats byte counts as a list: "64B, 128B, 1KiB".
func Sizes(sizes []int) string {
	s := make([]string, len(sizes))
	for i, v := range sizes {
		s[i] = Bytes(int64(v))
	}
	return strings.Join(s, ", ")
}

// SizeSpan formats a range of byte counts, "64B to 1KiB", or one count
// when lo is hi.
func SizeSpan(lo, hi int) string {
	if lo == hi {
		return Bytes(int64(lo))
	}
	return Bytes(int64(lo)) + " to " + Bytes(int64(hi))
}
