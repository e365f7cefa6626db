package units

import "testing"

func TestUnits(t *testing.T) {
	cases := []struct{ got, want string }{
		{Bytes(64), "64B"}, {Bytes(1024), "1KiB"}, {Bytes(1536), "1.5KiB"}, {Bytes(1 << 20), "1MiB"},
		{Bytes(0), "0B"}, {Duration(850), "850ns"}, {Duration(1250), "1.25µs"}, {Duration(12300000), "12.3ms"},
		{Duration(2e9), "2s"}, {Rate(950), "950"}, {Rate(12345), "12.3k"}, {MiB(3 << 20), "3"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
