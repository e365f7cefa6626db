package units

import "testing"

func TestSizes(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Sizes([]int{64, 131072, 1536}), "64B, 128KiB, 1.5KiB"}, {Sizes(nil), ""},
		{SizeSpan(64, 1024), "64B to 1KiB"}, {SizeSpan(4096, 4096), "4KiB"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
