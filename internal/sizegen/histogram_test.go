package sizegen

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestReadHistogram(t *testing.T) {
	in := "# sizes seen in production\r\nsize, count\r\n\r\n64, 30\r\n4KiB,10\r\n  1000 ,0\r\n100,60\r\n"
	g, err := ReadHistogram(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	sizes, probs := g.Sizes()
	if !slices.Equal(sizes, []int{64, 100, 4096}) {
		t.Fatalf("sizes %v, want [64 100 4096] (a count of 0 is never drawn)", sizes)
	}
	for i, want := range []float64{0.3, 0.6, 0.1} {
		if math.Abs(probs[i]-want) > 1e-15 {
			t.Errorf("P(%d) = %v, want %v", sizes[i], probs[i], want)
		}
	}
}

// Every problem is reported, each at its line.
func TestReadHistogramErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", []string{"no sizes: want size,count lines"}},
		{"# only a comment\n\n", []string{"no sizes"}},
		{"size,count\n", []string{"no sizes"}},
		{"64,0\n128,0\n", []string{"no size has a positive weight"}},
		{"64,1\n64\n", []string{"line 2: want size,count, got 1 fields"}},
		{"64,1,2\n", []string{"line 1: want size,count, got 3 fields"}},
		{"64,1\nabc,2\n", []string{`line 2: invalid size "abc"`}},
		{"64,1\n-5,2\n", []string{"line 2: size -5 is negative"}},
		{"64,1\n1.5KiB,2\n", []string{"line 2: invalid size \"1.5KiB\": want a whole number of units"}},
		{"64,x\n", []string{`line 1: count "x": want an integer >= 0`}},
		{"64,-1\n", []string{`line 1: count "-1"`}},
		{"64,1.5\n", []string{`line 1: count "1.5"`}},
		{"64,1\n\n# dup\n64B,2\n", []string{"line 4: size 64B listed again (first at line 1)"}},
		{"size,count\nsize,count\n", []string{`line 2: invalid size "size"`, `line 2: count "count"`}},
		{"x,1\n64,1\ny,z\n64,2\n", []string{`line 1: invalid size "x"`, `line 3: invalid size "y"`, `line 3: count "z"`, "line 4: size 64B listed again (first at line 2)"}},
		{"64,1\n" + strings.Repeat("9", 70000) + ",1\n", []string{"line 2: bufio.Scanner: token too long"}},
	} {
		_, err := ReadHistogram(strings.NewReader(c.in))
		wantProblems(t, c.in, err, c.want)
	}
}
