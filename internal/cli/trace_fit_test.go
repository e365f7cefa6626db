package cli

import (
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/internal/trace/synth"
	"github.com/kvbench/kvbench/internal/workload"
)

// A workload fitted to the shipped trace loads, and keeps the trace's
// mix, distinct keys, skew, sizes and rate.
func TestTraceStatsWorkload(t *testing.T) {
	want, err := synth.Twitter(io.Discard, synth.Default)
	if err != nil {
		t.Fatal(err)
	}
	s, err := trace.Stats(syntheticTrace, trace.Twitter)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "fit.yaml")
	if _, err := runCLI(t, "trace", "stats", syntheticTrace, "--workload", out); err != nil {
		t.Fatal(err)
	}
	w, err := workload.LoadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	n := float64(want.Requests)
	m := w.Mix
	if math.Abs(m.Get-float64(want.Get)/n) > 1e-9 || math.Abs(m.Delete-float64(want.Delete)/n) > 1e-9 || math.Abs(m.Set-float64(want.Set)/n) > 1e-9 {
		t.Errorf("mix %+v, want %d/%d/%d of %d", m, want.Get, want.Set, want.Delete, want.Requests)
	}
	// The trace's fitted exponent lies just above 1, where zipfian draws
	// none: the workload takes the nearest it can and says so.
	k, alpha := w.Keys, s.Keys.Zipf.Alpha
	if k.Count != want.DistinctKeys || k.Distribution != "zipfian" || int64(k.Size) != s.KeySize.P50 ||
		alpha <= 0.99 || k.ZipfianConstant != 0.99 {
		t.Errorf("keys %+v, want %d zipfian at 0.99 for alpha %.3f, size %d", k, want.DistinctKeys, alpha, s.KeySize.P50)
	}
	yaml, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(yaml), "outside (0, 1), where zipfian draws: clamped") {
		t.Errorf("no comment on the clamped exponent:\n%s", yaml)
	}
	if w.Name != "fit" || w.Load.Mode != "open" || w.Load.Rate != float64(s.Rate.Median) ||
		w.Phases.Measure.Duration != workload.Duration(int64(len(want.PerSecond))*1e9) {
		t.Errorf("name %q, load %+v, measure %+v", w.Name, w.Load, w.Phases.Measure)
	}
	if d := w.Values.Distribution; d == nil || !strings.Contains(d.Spec, "fit.sizes.csv") {
		t.Fatalf("values %+v: want the histogram fit.sizes.csv", w.Values)
	}
	rows := readSizes(t, filepath.Join(filepath.Dir(out), "fit.sizes.csv"))
	var sum int64
	for _, r := range rows {
		sum += r.Count
	}
	if sum != want.Set || len(rows) > 328 || !slices.IsSortedFunc(rows, func(a, b trace.SizeCount) int { return int(a.Size - b.Size) }) {
		t.Errorf("%d rows counting %d sizes, want %d sets in at most 328 rows, ascending", len(rows), sum, want.Set)
	}
}

func readSizes(t *testing.T, path string) []trace.SizeCount {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rows []trace.SizeCount
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") || line == "size,count" {
			continue
		}
		size, count, _ := strings.Cut(line, ",")
		a, err1 := strconv.ParseInt(size, 10, 64)
		b, err2 := strconv.ParseInt(count, 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: line %q", path, line)
		}
		rows = append(rows, trace.SizeCount{Size: a, Count: b})
	}
	return rows
}

// Neither file is overwritten without --force.
func TestTraceStatsWorkloadForce(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "fit.yaml")
	if err := os.WriteFile(filepath.Join(dir, "fit.sizes.csv"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := runCLI(t, "trace", "stats", syntheticTrace, "--workload", out)
	if err == nil || !strings.Contains(err.Error(), "fit.sizes.csv exists: give --force") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the workload was written beside a file it refused to overwrite")
	}
	if _, err := runCLI(t, "trace", "stats", syntheticTrace, "--workload", out, "--force"); err != nil {
		t.Fatal(err)
	}
	if _, err := workload.LoadFile(out); err != nil {
		t.Error(err)
	}
}
