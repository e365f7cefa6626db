package plot

import (
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
)

// failCell gives run's cell of op, threshold and size a failed check.
func failCell(t *testing.T, run *results.Run, op string, threshold, size int) {
	t.Helper()
	for i := range run.Cells {
		if c := &run.Cells[i]; c.Op == op && c.Threshold == threshold && c.ValueSize == size {
			c.Checks = append(c.Checks, results.Check{Name: results.CheckStationarity, Method: "mann-kendall", Pass: false})
			return
		}
	}
	t.Fatalf("no %s cell at threshold %d, size %d", op, threshold, size)
}

// seriesPoints counts the points of the series named name.
func seriesPoints(p *Panel, name string) int {
	i := slices.IndexFunc(p.Series, func(s Series) bool { return s.Name == name })
	if i < 0 {
		return -1
	}
	return len(p.Series[i].Points)
}

// --trusted-only leaves the untrusted cell out of its op's figures, whose
// captions say so; the other op's figures lose nothing and say that too.
// Without it, the cell is drawn and captions add nothing.
func TestTrustedOnlyLeavesCellOut(t *testing.T) {
	run := testRun(t, "")
	failCell(t, run, "get", 4096, 1024)
	figs, _, err := Figures(run, "", Options{TrustedOnly: true, Percentiles: true})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*Figure{}
	for _, f := range figs {
		byName[f.Name] = f
	}
	get, set := byName["throughput-ops-get"], byName["throughput-ops-set"]
	if get == nil || set == nil {
		t.Fatalf("no throughput figures among %d", len(figs))
	}
	if n := seriesPoints(get.Panels[0], "t=4KiB"); n != len(sizes)-1 {
		t.Errorf("get at 4KiB: %d points, want %d without the untrusted cell", n, len(sizes)-1)
	}
	if n := seriesPoints(get.Panels[0], "t=0B"); n != len(sizes) {
		t.Errorf("get at 0B: %d points, want all %d", n, len(sizes))
	}
	if get.Note != "trusted cells only, 1 untrusted cell left out" || set.Note != "trusted cells only, none left out" {
		t.Errorf("notes %q and %q", get.Note, set.Note)
	}
	if f := byName["percentiles-get-1KiB"]; f == nil || f.Note != "trusted cells only, 1 untrusted cell left out" {
		t.Errorf("the get cells at 1KiB: figure %v", f)
	}
	if len(run.Cells) != 2*3*len(sizes) {
		t.Errorf("the run itself lost cells: %d", len(run.Cells))
	}

	all, _, err := Figures(run, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if f.Name == "throughput-ops-get" && (seriesPoints(f.Panels[0], "t=4KiB") != len(sizes) || f.Note != "") {
			t.Errorf("without --trusted-only: %d points, note %q", seriesPoints(f.Panels[0], "t=4KiB"), f.Note)
		}
	}
}

// The caption of a saved figure names the build and what was left out.
func TestTrustedOnlyCaption(t *testing.T) {
	dir := t.TempDir()
	run := testRun(t, dir)
	failCell(t, run, "set", 0, 64)
	failCell(t, run, "set", 65536, 64)
	opt := Options{OutDir: dir, TrustedOnly: true, Formats: []string{"svg"}}
	if _, _, err := SaveAll(run, dir, opt); err != nil {
		t.Fatal(err)
	}
	if !fileContains(t, dir+"/latency-set.svg", run.Build()+"; trusted cells only, 2 untrusted cells left out") {
		t.Error("latency-set.svg's caption does not say 2 untrusted cells were left out")
	}
}

// In a comparison, each run's untrusted cells are left out and counted.
func TestTrustedOnlyCompare(t *testing.T) {
	a, b := testRun(t, ""), testRun(t, "")
	failCell(t, b, "get", 0, 64)
	runs := []RunDir{{Run: a}, {Run: b}}
	figs, err := compareFigures(trustedRuns(runs, false), trustedRuns(runs, true))
	if err != nil {
		t.Fatal(err)
	}
	noteLeftOut(figs, a, b)
	for _, f := range figs {
		want := "trusted cells only, none left out"
		if strings.HasSuffix(f.Name, "-get") {
			want = "trusted cells only, 1 untrusted cell left out"
		}
		if f.Note != want {
			t.Errorf("%s: note %q, want %q", f.Name, f.Note, want)
		}
	}
}

// A cell whose only failure is its p99's precision stays in the
// comparison's figures of medians and rates, and leaves its p99 figure.
func TestTrustedOnlyCompareTail(t *testing.T) {
	a, b := testRun(t, ""), testRun(t, "")
	a.Target, b.Target = &results.Target{Kind: "redis"}, &results.Target{Kind: "rdmakv"}
	for i := range b.Cells {
		if c := &b.Cells[i]; c.Op == "get" && c.Threshold == 0 && c.ValueSize == 64 {
			c.Checks = append(c.Checks, results.Check{Name: results.CheckTailPrecision, Method: results.MethodOrderStatistics, Pass: false})
		}
	}
	runs := []RunDir{{Run: a}, {Run: b}}
	figs, err := compareFigures(trustedRuns(runs, false), trustedRuns(runs, true))
	if err != nil {
		t.Fatal(err)
	}
	noteLeftOut(figs, a, b)
	seen := 0
	for _, f := range figs {
		want := "trusted cells only, none left out"
		if f.Name == "compare-latency-p99-get" {
			want = "trusted cells only, 1 untrusted cell left out"
		}
		if strings.HasPrefix(f.Name, "compare-latency-p") && strings.HasSuffix(f.Name, "-get") {
			seen++
		}
		if f.Note != want {
			t.Errorf("%s: note %q, want %q", f.Name, f.Note, want)
		}
	}
	if seen != 2 {
		t.Errorf("%d get latency figures (p50, p99), want 2", seen)
	}
}

// A map's tile whose winner stands on a measurement that failed a check
// is drawn untrusted, grey, and the legend says so; drawn from trusted
// measurements alone it is left out, and the caption counts it.
func TestTuneMapUntrustedTile(t *testing.T) {
	cells := [][]tune.MapCell{{{Winner: tune.WinEager, Ratio: 0.5}, {Winner: tune.WinRendezvous, Ratio: 2, Untrusted: true}}}
	draw := func(tf *tuneFilter) *Figure {
		var tiles [][]MapCell
		for _, row := range cells {
			var r []MapCell
			for _, c := range row {
				r = append(r, tf.tile(c))
			}
			tiles = append(tiles, r)
		}
		f, err := ThresholdMap("get", "p50", []int{64}, []string{"1 connection", "4 connections"}, tiles, []int{0, 0}, 16)
		if err != nil {
			t.Fatal(err)
		}
		return tf.noted(f)
	}
	f := draw(&tuneFilter{})
	tl := f.Panels[0].Tiles[1]
	if !tl.Cell.Untrusted || tl.Color != untrustedColor || f.Panels[0].Tiles[0].Color == untrustedColor {
		t.Errorf("tiles %+v", f.Panels[0].Tiles)
	}
	if !legendHas(t, f, "untrusted: a check failed") {
		t.Error("legend does not name the untrusted tile")
	}
	f = draw(&tuneFilter{on: true})
	if tl := f.Panels[0].Tiles[1]; tl.Cell.Winner != leftOutTile || tl.Color != noneColor || f.Note != "trusted points only, 1 untrusted point left out" {
		t.Errorf("trusted only: tile %+v, note %q", tl, f.Note)
	}
	if !legendHas(t, f, "left out: a check failed") || legendHas(t, f, "untrusted: a check failed") {
		t.Error("legend does not say the tile was left out")
	}
}

// legendHas reports whether f, drawn as SVG, holds the text s (its
// legend's entries are not in the model).
func legendHas(t *testing.T, f *Figure, s string) bool {
	t.Helper()
	b, err := f.SVG(600, 300)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(b), s)
}

// A comparison's caption names each measuring kvbench once: a
// baseline's run, which speaks no rdmakv protocol, beside an rdmakv
// run of the same build is not named twice; another build is.
func TestBuildsOfNamesEachBuildOnce(t *testing.T) {
	run := func(rev string, protocol int) RunDir {
		return RunDir{Run: &results.Run{Version: "devel", Revision: rev, Protocol: protocol}}
	}
	got := buildsOf([]RunDir{run("1a2b3c4", 6), run("1a2b3c4", 0), run("5d6e7f8", 0)})
	if want := "kvbench devel 1a2b3c4, protocol 6; kvbench devel 5d6e7f8"; got != want {
		t.Errorf("caption %q, want %q", got, want)
	}
}
