package units

import "testing"

// Sizes parse from an integer and an optional binary or decimal unit,
// whole units only, and ExactBytes writes what ParseBytes reads back.
func TestParseBytes(t *testing.T) {
	good := map[string]int64{"64B": 64, "4KiB": 4096, "1MiB": 1 << 20, "1GiB": 1 << 30, "4KB": 4000, "4kb": 4000,
		"2MB": 2000000, "4096": 4096, " 8 KiB ": 8192, "1TiB": 1 << 40, "-3B": -3, "0": 0}
	for s, want := range good {
		if got, err := ParseBytes(s); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "KiB", "1.5KiB", "4QB", "9999999999TiB", "x2", "-", "1 2"} {
		if got, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want error", s, got)
		}
	}
	for n, want := range map[int64]string{4096: "4KiB", 1000: "1000B", 0: "0B", 3 << 30: "3GiB", 1536: "1536B"} {
		got := ExactBytes(n)
		if back, err := ParseBytes(got); got != want || err != nil || back != n {
			t.Errorf("ExactBytes(%d) = %q, read back as %d, %v; want %q", n, got, back, err, want)
		}
	}
}
