package sizegen

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"gopkg.in/yaml.v3"
)

// checkAccepted holds an accepted distribution to what it states: every
// draw within [Min, Max], a CDF from 0 to 1 there, a mean between.
func checkAccepted(t *testing.T, d Distribution, minSize int) {
	lo, hi := d.Min(), d.Max()
	if lo < minSize || lo > hi {
		t.Fatalf("Min %d, Max %d", lo, hi)
	}
	if d.CDF(lo-1) != 0 || d.CDF(hi) != 1 {
		t.Fatalf("CDF(Min-1) = %v, CDF(Max) = %v", d.CDF(lo-1), d.CDF(hi))
	}
	if m := d.Mean(); !(m >= float64(lo)*(1-1e-9) && m <= float64(hi)*(1+1e-9)) {
		t.Fatalf("Mean %v outside [%d, %d]", m, lo, hi)
	}
	r := newRand(1)
	for range 200 {
		if x := d.Next(r); x < lo || x > hi {
			t.Fatalf("drew %d outside [%d, %d]", x, lo, hi)
		}
	}
}

// checkErrors holds a rejection to its form: only *Errors, each saying
// something.
func checkErrors(t *testing.T, err error) {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var se *Error
		if !errors.As(e, &se) || se.Msg == "" {
			t.Fatalf("problem %q (%T) is not a positioned *Error", e, e)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"etc", "etc:\nmax: 4KiB\n", "weighted: {64B: 70, 4KiB: 20, 65536: 10}",
		"uniform: {min: 1KiB, max: 64KiB}\nmin: 2KiB", "gpd: {scale: 214.476, shape: 0.348238, location: 15}\nmax: 1MiB",
		"gpd: {scale: 1e300, shape: -40}", "gpd: {scale: 1e-300, shape: 300, location: 1e18}",
		"histogram: sizes.csv\nmin: 100", "histogram: bad.csv", "weighted: {64B: x, 4QB: 1, 0: 2}",
		"uniform: {min: 1, max: 9223372036854775807}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var doc yaml.Node
		if yaml.Unmarshal([]byte(src), &doc) != nil {
			return
		}
		d, err := Parse(&doc, testFS)
		if err != nil {
			checkErrors(t, err)
			return
		}
		checkAccepted(t, d, 1)
	})
}

func FuzzHistogram(f *testing.F) {
	for _, s := range []string{
		"size,count\n64,3\n1KiB,1\n", "# c\n\n0,1\n9223372036854775807,18446744073709551615\n",
		"64,1\n64,2\n", "x,y,z\n", "1.5,1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ReadHistogram(bytes.NewReader(data))
		if err != nil {
			checkErrors(t, err)
			return
		}
		checkAccepted(t, g, 0)
		sizes, probs := g.Sizes()
		var sum float64
		for i, p := range probs {
			if !(p > 0) {
				t.Fatalf("size %d has probability %v", sizes[i], p)
			}
			sum += p
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("probabilities sum to %v", sum)
		}
	})
}
