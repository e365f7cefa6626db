package plot

import (
	"image"
	_ "image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/results/resultstest"
)

const fixtureDist = "weighted-64B-40-512B-20-4KiB-20-32KiB-10-256KiB-7-1MiB-3"

// Per op, p50 above p99, a line per threshold over the size classes the
// op moved, at each class's merged percentile.
func TestClassLatency(t *testing.T) {
	run := resultstest.MixedA(t)
	dist := Distributions(run)
	if len(dist) != 1 {
		t.Fatalf("distributions %q", dist)
	}
	f, err := ClassLatency(run, "get", dist[0])
	if err != nil || f == nil {
		t.Fatalf("%v, %v", f, err)
	}
	if f.Name != "size-classes-get-"+fixtureDist || len(f.Panels) != 2 {
		t.Fatalf("figure %s of %d panels", f.Name, len(f.Panels))
	}
	classes := map[float64]bool{}
	for _, c := range run.Cells {
		if c.Op == "get" {
			for _, k := range c.SizeClasses {
				classes[float64(k.Class)] = true
			}
		}
	}
	for i, p := range f.Panels {
		if got := names(p); !slices.Equal(got, []string{"t=1KiB", "t=64KiB"}) {
			t.Errorf("panel %d: series %v", i, got)
		}
		for _, s := range p.Series {
			if len(s.Points) != len(classes) {
				t.Errorf("panel %d %s: %d points, want one per class (%d)", i, s.Name, len(s.Points), len(classes))
			}
		}
	}
	// p99 is never below p50, point by point.
	for j, s := range f.Panels[0].Series {
		for i, pt := range s.Points {
			if q := f.Panels[1].Series[j].Points[i]; q.X != pt.X || q.Y < pt.Y {
				t.Errorf("%s class %g: p99 %g below p50 %g", s.Name, pt.X, q.Y, pt.Y)
			}
		}
	}
	if f, err := ClassLatency(run, "delete", dist[0]); f != nil || err != nil {
		t.Errorf("an op the run has not: %v, %v", f, err)
	}
}

// The whole workload against the threshold: p50, p99, ops/s, CPU per
// operation and receive memory, each best threshold marked where the
// whole cells put it.
func TestWholeWorkload(t *testing.T) {
	run := resultstest.MixedA(t)
	f, err := WholeWorkload(run, Distributions(run)[0])
	if err != nil || f == nil {
		t.Fatalf("%v, %v", f, err)
	}
	if f.Name != "whole-workload-"+fixtureDist {
		t.Errorf("name %s", f.Name)
	}
	var got [][]string
	for _, p := range f.Panels {
		got = append(got, names(p))
	}
	want := [][]string{{"p50"}, {"p99"}, {"ops/s"}, {results.CPUScopeProcess}, {"server", "clients"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("panels' series %v, want %v", got, want)
	}
	whole, err := results.WholeCells(run.Cells)
	if err != nil {
		t.Fatal(err)
	}
	best := func(better func(a, b results.Cell) bool) float64 {
		b := whole[0]
		for _, c := range whole[1:] {
			if better(c, b) {
				b = c
			}
		}
		return float64(b.Threshold)
	}
	marks := []float64{
		best(func(a, b results.Cell) bool { return a.Latency.P50 < b.Latency.P50 }),
		best(func(a, b results.Cell) bool { return a.Latency.P99 < b.Latency.P99 }),
		best(func(a, b results.Cell) bool { return a.ThroughputOps > b.ThroughputOps }),
	}
	for i, x := range marks {
		if m := f.Panels[i].Markers; len(m) != 1 || m[0] != x {
			t.Errorf("panel %d: markers %v, want the best threshold %g", i, m, x)
		}
	}
	for i, c := range whole {
		if pt := f.Panels[4].Series[0].Points[i]; pt.X != float64(c.Threshold) || pt.Y != float64(c.ReceiveMemory.Server) {
			t.Errorf("server's receive memory point %v, want (%d, %d)", pt, c.Threshold, c.ReceiveMemory.Server)
		}
	}
	// Without receive memory or CPU, their panels are left out.
	for i := range run.Cells {
		run.Cells[i].ReceiveMemory, run.Cells[i].CPU = nil, nil
	}
	if f, err = WholeWorkload(run, Distributions(run)[0]); err != nil || len(f.Panels) != 3 {
		t.Errorf("without memory and CPU: %d panels, %v", len(f.Panels), err)
	}
}

// plot writes the mixed figures beside the others, the whole workload's
// five panels taller than a figure of one.
func TestSaveAllMixed(t *testing.T) {
	out := t.TempDir()
	paths, _, err := SaveAll(resultstest.MixedA(t), "", Options{OutDir: out, Formats: []string{"png"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"size-classes-get-" + fixtureDist, "size-classes-set-" + fixtureDist, "whole-workload-" + fixtureDist} {
		path := filepath.Join(out, name+".png")
		if !slices.Contains(paths, path) {
			t.Errorf("%s not written: %v", name, paths)
			continue
		}
		r, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _, err := image.DecodeConfig(r)
		r.Close()
		want := 500
		if strings.HasPrefix(name, "whole") {
			want = 1250
		}
		if err != nil || cfg.Width != 800 || cfg.Height != want {
			t.Errorf("%s: %v, %dx%d, want 800x%d", name, err, cfg.Width, cfg.Height, want)
		}
	}
}

// Runs of one distribution overlay their whole workload against the
// threshold, a line per run, and a baseline store's run is a level line
// at its own whole-workload figure across the others' thresholds.
func TestCompareWholeWorkload(t *testing.T) {
	a, b := resultstest.MixedA(t), resultstest.MixedA(t)
	for i := range b.Cells {
		b.Cells[i].Latency.P50 *= 2
	}
	base := resultstest.MixedA(t)
	th := base.Cells[0].Threshold
	base.Cells = slices.DeleteFunc(base.Cells, func(c results.Cell) bool { return c.Threshold != th })
	for i := range base.Cells {
		base.Cells[i].Store = "redis"
	}
	runs := []RunDir{{Dir: "a", Run: a}, {Dir: "b", Run: b}, {Dir: "redis", Run: base}}
	f, err := compareWholeWorkload(runs, []string{"a", "b", "redis"}, Distributions(a)[0])
	if err != nil || f == nil {
		t.Fatalf("%v, %v", f, err)
	}
	if f.Name != "compare-whole-workload-"+fixtureDist || len(f.Panels) != 3 {
		t.Fatalf("%s with %d panels, want compare-whole-workload-%s with p50, p99 and ops/s", f.Name, len(f.Panels), fixtureDist)
	}
	whole := func(r *results.Run) []results.Cell {
		w, err := results.WholeCells(r.Cells)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	p50 := f.Panels[0]
	if got := names(p50); !slices.Equal(got, []string{"a", "b", "redis"}) {
		t.Fatalf("p50 lines %v, want one per run", got)
	}
	wa, wb := whole(a), whole(b)
	for i, c := range wa {
		pa, pb := p50.Series[0].Points[i], p50.Series[1].Points[i]
		if pa.X != float64(c.Threshold) || pa.Y != float64(c.Latency.P50) || pb.Y != float64(wb[i].Latency.P50) {
			t.Errorf("threshold %d: points %v and %v, want p50 %d and %d", c.Threshold, pa, pb, c.Latency.P50, wb[i].Latency.P50)
		}
	}
	lvl := p50.Series[2].Points
	wr := whole(base)
	if len(lvl) != 2 || lvl[0].X != float64(wa[0].Threshold) || lvl[1].X != float64(wa[len(wa)-1].Threshold) ||
		lvl[0].Y != float64(wr[0].Latency.P50) || lvl[1].Y != lvl[0].Y {
		t.Errorf("the baseline's line %v, want level at its p50 %d from the first threshold to the last", lvl, wr[0].Latency.P50)
	}
	// Runs without a distribution have nothing to overlay.
	if f, err := compareWholeWorkload(runs[:1], []string{"a"}, "no such distribution"); f != nil || err != nil {
		t.Errorf("a distribution no run has: %v, %v", f, err)
	}
}
