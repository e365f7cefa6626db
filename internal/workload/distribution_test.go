package workload

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/sizegen"
)

// Each form of values.distribution reads into its law, named by its spec
// on one line, with one cell per threshold at the law's mean.
func TestDistributionForms(t *testing.T) {
	for _, c := range []struct {
		yaml, spec string
		min, max   int
		mean       int64
	}{
		{"{weighted: {64B: 70, 4KiB: 20, 256KiB: 10}}", "weighted: {64B: 70, 4KiB: 20, 256KiB: 10}", 64, 256 << 10, 27078},
		{"{uniform: {min: 1KiB, max: 64KiB}}", "uniform: {min: 1KiB, max: 64KiB}", 1024, 64 << 10, 33280},
		{"\n    uniform:\n      min: 10\n      max: 20\n    min: 12", "uniform: {min: 10, max: 20}, min: 12", 12, 20, 15},
		{"{etc: , max: 1MiB}", "etc, max: 1MiB", 1, 1 << 20, 0},
		{"{gpd: {scale: 100, shape: -0.5, location: 10}}", "gpd: {scale: 100, shape: -0.5, location: 10}", 10, 209, 0},
		{"{gpd: {scale: 100, shape: 0.5}, max: 1MiB, min: 100}", "gpd: {scale: 100, shape: 0.5}, max: 1MiB, min: 100", 100, 1 << 20, 0},
		{`{weighted: {"64B": 1}}`, `weighted: {"64B": 1}`, 64, 64, 64},
	} {
		w, err := Parse("x.yaml", []byte("values:\n  distribution: "+c.yaml+"\nthresholds: [1KiB, 4KiB]\n"))
		if err != nil {
			t.Errorf("%s: %v", c.yaml, err)
			continue
		}
		d := w.Values.Distribution
		if d.Spec != c.spec || d.Law().Min() != c.min || d.Law().Max() != c.max {
			t.Errorf("%s: spec %q, sizes %d..%d; want %q, %d..%d", c.yaml, d.Spec, d.Law().Min(), d.Law().Max(), c.spec, c.min, c.max)
		}
		if c.mean != 0 && d.MeanSize() != c.mean {
			t.Errorf("%s: mean %d, want %d", c.yaml, d.MeanSize(), c.mean)
		}
		cells := w.Cells()
		if len(w.ValueSizes()) != 0 || len(cells) != 2 || cells[1] != (Cell{Index: 1, ValueSize: d.MeanSize(), Threshold: 4096, Distribution: d.Spec}) {
			t.Errorf("%s: sizes %v, cells %+v", c.yaml, w.ValueSizes(), cells)
		}
		// The spec reads back as the same law.
		again, err := NewDistribution(d.Spec)
		if err != nil || again.Spec != d.Spec || again.Law().Mean() != d.Law().Mean() || again.Law().CDF(100) != d.Law().CDF(100) {
			t.Errorf("%s: spec %q reads back as %+v, %v", c.yaml, d.Spec, again, err)
		}
	}
}

// A histogram is read relative to the workload file's directory, and
// results.json records the distribution by its spec.
func TestDistributionHistogramAndJSON(t *testing.T) {
	w, err := LoadFile("testdata/good/distribution.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := w.Values.Distribution.Law()
	if got := sizegen.Mass(d, 4096); math.Abs(got-0.2) > 1e-12 || d.Max() != 64<<10 || math.Abs(sizegen.Mass(d, 64<<10)-0.1) > 1e-12 {
		t.Errorf("histogram law: P(4KiB) = %v, max %d", got, d.Max())
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"values":{"distribution":"histogram: sizes.csv, max: 64KiB"}`) {
		t.Errorf("JSON %s", b)
	}
	var back Workload
	if err := json.Unmarshal(b, &back); err != nil || back.Values.Distribution.Spec != "histogram: sizes.csv, max: 64KiB" {
		t.Errorf("read back %+v: %v", back.Values, err)
	}
	// From elsewhere, the file is still the workload's neighbour.
	dir := t.TempDir()
	data, _ := os.ReadFile("testdata/good/distribution.yaml")
	if _, err := Parse(filepath.Join(dir, "w.yaml"), data); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "sizes.csv")) {
		t.Errorf("histogram beside another file: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sizes.csv"), []byte("100,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if w, err := Parse(filepath.Join(dir, "w.yaml"), data); err != nil || w.Values.Distribution.Law().Max() != 100 {
		t.Errorf("histogram beside the file: %v", err)
	}
}

// Every problem with a distribution is a FieldError at its line and
// column in the file, with the field's path below values.distribution.
func TestDistributionErrorsPositioned(t *testing.T) {
	src := "name: x\nvalues:\n  distribution:\n    uniform: {min: 2KiB, max: 1KiB}\n    max: abc\n"
	_, err := Parse("w.yaml", []byte(src))
	var fe *FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("%v: no FieldError", err)
	}
	want := []string{
		"w.yaml:4:31: values.distribution.uniform.max: 1KiB is below min 2KiB",
		`w.yaml:5:10: values.distribution.max: invalid size "abc"`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("got\n%v\nwant %d problems", err, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d: %q, want %q", i, lines[i], w)
		}
	}
	// A problem with the spec as a whole is at the spec.
	_, err = Parse("w.yaml", []byte("values:\n  distribution: {min: 1KiB}\n"))
	if err == nil || err.Error() != "w.yaml:2:17: values.distribution: no distribution: give one of weighted, uniform, gpd, etc, histogram" {
		t.Errorf("got %v", err)
	}
}
