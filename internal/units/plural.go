package units

import "strconv"

// Plural counts n of thing for people: "1 connection", "3 connections".
func Plural[N ~int | ~int64](n N, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.FormatInt(int64(n), 10) + " " + thing + "s"
}
