package sizegen

import (
	"errors"
	"io/fs"
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"gopkg.in/yaml.v3"
)

var testFS = fstest.MapFS{
	"sizes.csv": {Data: []byte("size,count\n64,3\n1KiB,1\n")},
	"bad.csv":   {Data: []byte("size,count\n64,3\n64,x\n1.5,1\n")},
}

func parseYAML(t testing.TB, src string, fsys fs.FS) (Distribution, error) {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatalf("%q: %v", src, err)
	}
	return Parse(&doc, fsys)
}

func TestParse(t *testing.T) {
	hist := must(ReadHistogram(strings.NewReader("64,3\n1024,1\n")))
	for _, c := range []struct {
		src      string
		like     Distribution // the same law, before the default clamp
		min, max int
	}{
		{"etc", ETC(), 1, ETC().Max()},
		{"etc:\nmax: 4KiB\n", ETC(), 1, 4096},
		{"etc: {}\nmin: 16", ETC(), 16, ETC().Max()},
		{"weighted: {64B: 70, 4KiB: 20, 65536: 10}", must(NewWeighted([]Weight{{64, 70}, {4096, 20}, {65536, 10}})), 64, 65536},
		{"weighted:\n  64: 1\n  128B: 0.5\n", must(NewWeighted([]Weight{{64, 1}, {128, 0.5}})), 64, 128},
		{"uniform: {min: 1KiB, max: 64KiB}", must(NewUniform(1024, 65536)), 1024, 65536},
		{"uniform: {max: 10, min: 10}\nmax: 1MiB", must(NewUniform(10, 10)), 10, 10},
		{"gpd: {scale: 214.476, shape: 0.348238, location: 15}\nmax: 1MiB", must(NewGPD(15, 214.476, 0.348238)), 15, 1 << 20},
		{"max: 1MiB\ngpd: {scale: 10, shape: 0}", must(NewGPD(0, 10, 0)), 1, must(NewGPD(0, 10, 0)).Max()},
		{"histogram: sizes.csv", hist, 64, 1024},
		{"histogram: sizes.csv\nmin: 100\nmax: 100", hist, 100, 100},
	} {
		d, err := parseYAML(t, c.src, testFS)
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if d.Min() != c.min || d.Max() != c.max {
			t.Errorf("%q: Min %d, Max %d, want %d, %d", c.src, d.Min(), d.Max(), c.min, c.max)
		}
		for _, s := range []int{0, 1, 15, 63, 64, 100, 1000, 4096, 60000, 1 << 20} {
			want := c.like.CDF(s)
			switch {
			case s < c.min:
				want = 0
			case s >= c.max:
				want = 1
			}
			if got := d.CDF(s); math.Abs(got-want) > 1e-15 {
				t.Errorf("%q: CDF(%d) = %v, want %v", c.src, s, got, want)
			}
		}
	}
}

// Anchors and aliases are followed, and the spec may be any node of a
// larger document.
func TestParseAlias(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("common: &w {64B: 1, 128B: 3}\nvalues:\n  distribution:\n    weighted: *w\n"), &doc); err != nil {
		t.Fatal(err)
	}
	spec := doc.Content[0].Content[3].Content[1]
	d, err := Parse(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := Mass(d, 128); got != 0.75 {
		t.Errorf("P(128) = %v, want 0.75", got)
	}
}

// Every problem is reported at once, each at its line and column, sorted.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []string // each error, in order, starts with one of these
	}{
		{"", []string{"no size distribution given"}},
		{"~", []string{"line 1, column 1: no size distribution given"}},
		{"pareto", []string{`line 1, column 1: unknown distribution "pareto" (want one of weighted, uniform, gpd, etc, histogram)`}},
		{"weighted", []string{"line 1, column 1: weighted needs parameters, like weighted: {64B: 70, 4KiB: 30}"}},
		{"[1, 2]", []string{"line 1, column 1: want a distribution like weighted: {64B: 70, 4KiB: 30}, got a list"}},
		{"min: 1KiB", []string{"line 1, column 1: no distribution: give one of weighted, uniform, gpd, etc, histogram"}},
		{"weigthed: {64B: 1}", []string{"line 1, column 1: weigthed: unknown field (want one of weighted, uniform, gpd, etc, histogram, min, max)"}},
		{"{1: etc}", []string{`line 1, column 2: want a field name, got "1"`}},
		{"uniform: {min: 1, max: 2}\nweighted: {64B: 1}\netc:", []string{
			"line 2, column 1: weighted: give one distribution; uniform is already given at line 1",
			"line 3, column 1: etc: give one distribution; uniform is already given at line 1"}},
		{"etc:\nmax: 1\nmax: 2", []string{"line 3, column 1: max: given twice (first at line 2)"}},
		{"weighted: {64B: x, 4QB: 1, 0: 2, 128: -1, [1]: 1}", []string{
			`line 1, column 17: weighted.64B: want a number, got "x"`,
			`line 1, column 20: weighted.4QB: invalid size "4QB": unknown unit "QB"`,
			"line 1, column 28: weighted.0: size 0 is below 1B",
			"line 1, column 39: weighted.128: weight -1 is negative",
			"line 1, column 43: weighted: want a size like 4096, \"64B\" or \"4KiB\", got a list"}},
		{"weighted: {}", []string{"line 1, column 11: weighted: want sizes and their weights, like weighted: {64B: 70, 4KiB: 30}, got a mapping"}},
		{"weighted: [64B]", []string{"line 1, column 11: weighted: want sizes and their weights"}},
		{"weighted: {64B: 0, 128: 0.0}", []string{"line 1, column 11: weighted: no size has a positive weight"}},
		{"weighted: {64B: 1e308, 128: 1e308}", []string{"line 1, column 11: weighted: weights too large"}},
		{"weighted:\n  64: 1\n  64B: 2\n", []string{"line 3, column 3: weighted.64B: size 64B listed twice (also at line 2)"}},
		{"uniform: {min: 2KiB}", []string{"line 1, column 10: uniform: missing max"}},
		{"uniform: {}", []string{"line 1, column 10: uniform: missing min", "line 1, column 10: uniform: missing max"}},
		{"uniform: {min: 2KiB, max: 1KiB, step: 1}", []string{
			"line 1, column 27: uniform.max: 1KiB is below min 2KiB",
			"line 1, column 33: uniform.step: unknown field (want one of min, max)"}},
		{"uniform: 5", []string{`line 1, column 10: uniform: want a mapping of min, max, got "5"`}},
		{"uniform: {min: 0, max: 0x10}", []string{"line 1, column 16: uniform.min: size 0 is below 1B"}},
		{"gpd: {scale: 0, shape: .nan, location: -1}", []string{
			"line 1, column 14: gpd.scale: want a number > 0, got 0",
			"line 1, column 24: gpd.shape: want a finite number, got .nan",
			"line 1, column 40: gpd.location: want a number >= 0 (sizes are never negative), got -1"}},
		{"gpd: {shape: 1}", []string{"line 1, column 6: gpd: missing scale"}},
		{"gpd: {scale: abc, shape: [0.1]}", []string{
			`line 1, column 14: gpd.scale: want a number, got "abc"`,
			"line 1, column 26: gpd.shape: want a number, got a list"}},
		{"etc: 5", []string{`line 1, column 6: etc: etc takes no parameters, got "5"`}},
		{"histogram: missing.csv", []string{"line 1, column 12: histogram: open missing.csv: file does not exist"}},
		{"histogram: bad.csv", []string{
			"line 1, column 12: histogram: bad.csv:3: count \"x\": want an integer >= 0",
			"line 1, column 12: histogram: bad.csv:4: invalid size \"1.5\""}},
		{"histogram: [a]", []string{"line 1, column 12: histogram: want a file name, like histogram: sizes.csv, got a list"}},
		{"etc:\nmin: 0\nmax: -1", []string{"line 2, column 6: min: size 0 is below 1B", "line 3, column 6: max: size -1 is below 1B"}},
		{"etc:\nmin: 1KiB\nmax: 512", []string{"line 3, column 6: max: 512B is below min 1KiB"}},
		{"uniform: {min: 1KiB, max: 2KiB}\nmax: 512", []string{"line 2, column 6: max: 512B is below every size uniform draws (from 1KiB)"}},
		{"uniform: {min: 1KiB, max: 2KiB}\nmin: 4KiB", []string{"line 2, column 6: min: 4KiB is above every size uniform draws (up to 2KiB)"}},
		{"weighted: {64B: 1}\nsize: 3\nmin: [1]", []string{
			"line 2, column 1: size: unknown field",
			`line 3, column 6: min: want a size like 4096, "64B" or "4KiB", got a list`}},
		{"weighted: {99999999999999999999B: 1}", []string{`line 1, column 12: weighted.99999999999999999999B: invalid size "99999999999999999999B": value out of range`}},
	} {
		_, err := parseYAML(t, c.src, testFS)
		wantProblems(t, c.src, err, c.want)
	}
}

// wantProblems checks that err is the problems want, in order: each of
// err's lines starts with the matching want, and each is an *Error.
func wantProblems(t *testing.T, input string, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Errorf("%.40q accepted", input)
		return
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Errorf("%.40q: %d problems, want %d:\n%v", input, len(lines), len(want), err)
		return
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("%.40q: problem %d is\n\t%s\nwant\n\t%s", input, i+1, lines[i], w)
		}
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("%.40q: %T is not an *Error", input, err)
	}
}

func TestParseHistogramWithoutFiles(t *testing.T) {
	_, err := parseYAML(t, "histogram: sizes.csv", nil)
	if err == nil || !strings.Contains(err.Error(), "line 1, column 12: histogram: histogram files cannot be read here") {
		t.Fatalf("got %v", err)
	}
}

// ParseKey reads the same forms, etc naming ETC's key sizes.
func TestParseKey(t *testing.T) {
	for src, like := range map[string]Distribution{
		"etc\n":                      Clamp(ETCKey(), 1, math.MaxInt).(Distribution), // sizes are at least 1B
		"etc:\nmax: 250B\n":          Clamp(ETCKey(), 1, 250).(Distribution),
		"uniform: {min: 8, max: 64}": must(NewUniform(8, 64)),
	} {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
			t.Fatal(err)
		}
		d, err := ParseKey(&doc, nil)
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		for _, s := range []int{0, 8, 20, 36, 64, 249, 250, 1000} {
			if d.CDF(s) != like.CDF(s) {
				t.Errorf("%q: CDF(%d) = %v, want %v", src, s, d.CDF(s), like.CDF(s))
			}
		}
	}
}
