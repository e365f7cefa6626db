package workload

import (
	"encoding/json"
	"testing"

	"github.com/kvbench/kvbench/internal/sizegen"
)

// keys.size takes a size, with or without a unit, or a distribution as
// values.distribution does, etc naming the ETC pool's key sizes; Size is
// then the longest key, and sizes below what keys.count needs are raised
// to it.
func TestKeySizeForms(t *testing.T) {
	etcKey := sizegen.Clamp(sizegen.ETCKey(), 4, 250).(sizegen.Distribution)
	for _, c := range []struct {
		yaml, spec string
		size, min  int
		like       sizegen.Distribution // the law, nil for a fixed size
	}{
		{"36", "", 36, 0, nil},
		{`"36B"`, "", 36, 0, nil},
		{"{etc: , max: 250B}", "etc, max: 250B", 250, 4, etcKey},
		{"\n    etc:\n    max: 250", "etc, max: 250", 250, 4, etcKey},
		{"{uniform: {min: 1, max: 64}}", "uniform: {min: 1, max: 64}", 64, 4, nil},
		{"{weighted: {16: 3, 40B: 1}}", "weighted: {16: 3, 40B: 1}", 40, 16, nil},
	} {
		w, err := Parse("k.yaml", []byte("keys:\n  count: 1000\n  size: "+c.yaml+"\nvalues: {sizes: [64]}\n"))
		if err != nil {
			t.Errorf("%s: %v", c.yaml, err)
			continue
		}
		k := w.Keys
		law := k.SizeLaw()
		switch {
		case k.Size != c.size:
			t.Errorf("%s: size %d, want %d", c.yaml, k.Size, c.size)
		case c.spec == "" && (k.SizeDistribution != nil || law != nil):
			t.Errorf("%s: a fixed size read as a distribution %+v", c.yaml, k.SizeDistribution)
		case c.spec == "":
		case k.SizeDistribution == nil || k.SizeDistribution.Spec != c.spec:
			t.Errorf("%s: distribution %+v, want spec %q", c.yaml, k.SizeDistribution, c.spec)
		case law.Min() != c.min || law.Max() != c.size:
			t.Errorf("%s: sizes %d..%d, want %d..%d", c.yaml, law.Min(), law.Max(), c.min, c.size)
		}
		if c.like != nil {
			for _, s := range []int{3, 4, 20, 36, 60, 249, 250} {
				if got, want := law.CDF(s), c.like.CDF(s); got != want {
					t.Errorf("%s: CDF(%d) = %v, want ETC's key law's %v", c.yaml, s, got, want)
				}
			}
		}
	}
}

// results.json records a drawn key size by its spec beside the longest
// key, and a fixed one as before, by its size alone.
func TestKeySizeJSON(t *testing.T) {
	for src, want := range map[string]string{
		"{etc: , max: 250B}": `{"count":1000,"size":250,"size_distribution":"etc, max: 250B","distribution":"uniform"}`,
		"36":                 `{"count":1000,"size":36,"distribution":"uniform"}`,
	} {
		w, err := Parse("k.yaml", []byte("keys: {count: 1000, size: "+src+"}\nvalues: {sizes: [64]}\n"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(w.Keys)
		if err != nil || string(b) != want {
			t.Errorf("%s: %s, %v; want %s", src, b, err, want)
		}
	}
}

// Every problem with keys.size as a distribution is a FieldError at its
// line and column, with its path below keys.size.
func TestKeySizeErrorsPositioned(t *testing.T) {
	for src, want := range map[string]string{
		"keys:\n  size: etc\n":                                                                "k.yaml:2:3: keys.size: etc has no largest size (its tail ends only where a float64 runs out, at 1.76KiB): give max, at most 1KiB, to clamp it, like max: 250B",
		"keys:\n  size:\n    uniform: {min: 2KiB, max: 1KiB}\n":                               "k.yaml:3:31: keys.size.uniform.max: 1KiB is below min 2KiB",
		"keys:\n  size:\n    uniform: {min: 1KiB, max: 4KiB}\n":                               "k.yaml:2:3: keys.size: draws sizes up to 4KiB, above the 1KiB a key may have: give max, at most 1KiB, or lower the sizes",
		"keys:\n  size: {etc: , max: 2KiB}\n":                                                 "k.yaml:2:22: keys.size.max: lets sizes up to 1.76KiB through, above the 1KiB a key may have: lower it to at most 1KiB",
		"keys:\n  size: {etc: , max: abc}\n":                                                  `k.yaml:2:22: keys.size.max: invalid size "abc": want an integer with an optional unit (B, KiB, MiB, GiB, KB, MB, GB)`,
		"keys:\n  size: sixteen\n":                                                            `k.yaml:2:9: keys.size: want a key size like 16 or "36B", or a distribution like {etc: , max: 250B}, got a string "sixteen"`,
		"keys:\n  size: uniform\n":                                                            "k.yaml:2:9: keys.size: uniform needs parameters, like uniform: {min: 1KiB, max: 64KiB}",
		"keys:\n  count: 100000\n  size: {uniform: {min: 1, max: 5}}\n":                       "k.yaml:2:3: keys.count: 100000 keys need keys of at least 6 bytes ('k' and 5 decimal digits), above every size keys.size draws (up to 5) (line 3); raise its max",
		"target: {kind: memcached, server: \"h:11211\"}\nkeys:\n  size: {etc: , max: 300B}\n": "k.yaml:3:3: keys.size: draws keys of up to 300 bytes, but memcached takes keys of at most 250: give max: 250B",
	} {
		_, err := Parse("k.yaml", []byte(src+"values: {sizes: [64]}\n"))
		if err == nil || err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %s", src, err, want)
		}
	}
}
