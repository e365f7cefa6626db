package plot

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kvbench/kvbench/internal/figure"
	"github.com/kvbench/kvbench/internal/results"
)

// An adaptive cell's threshold is drawn as a step per interval, the last
// cut at the phase's end, and each class's eager share beneath; the op's
// eager and rendezvous cells share the timeline and are drawn once, and
// an op without an adaptive cell gets no figure.
func TestAdaptiveFigure(t *testing.T) {
	tl := &results.AdaptiveTimeline{IntervalNs: 1e9, StartThreshold: 4096, Thresholds: []int64{4096, 1024, 1024},
		Classes: []results.AdaptiveClass{
			{Lower: 2048, Upper: 4096, Eager: []uint64{30, 1, 0}, Rendezvous: []uint64{10, 3, 0}},
			{Lower: 65536, Eager: []uint64{0, 0, 0}, Rendezvous: []uint64{5, 5, 5}},
		}}
	run := &results.Run{}
	for _, p := range []string{"eager", "rendezvous"} {
		run.Cells = append(run.Cells, results.Cell{Op: "set", ValueSize: 2500, Threshold: -1, Policy: results.PolicyAdaptive,
			Protocol: p, DurationNs: 2_500_000_000, Adaptive: tl})
	}
	run.Cells = append(run.Cells, results.Cell{Op: "get", ValueSize: 2500, Threshold: 4096, Protocol: "eager", DurationNs: 2e9})
	if f, err := FigureOf(run, "get", figure.Adaptive); f != nil || err != nil {
		t.Errorf("get, without an adaptive cell: %v, %v", f, err)
	}
	f, err := FigureOf(run, "set", figure.Adaptive)
	if err != nil || f == nil {
		t.Fatalf("%v, %v", f, err)
	}
	top, bottom := f.Panels[0], f.Panels[1]
	if f.Name != "adaptive-set" || len(top.Series) != 1 || top.Series[0].Name != "2.44KiB" {
		t.Fatalf("figure %s, top series %v; want adaptive-set, one line", f.Name, names(top))
	}
	want := "[{0 4096} {1 4096} {1 1024} {2 1024} {2 1024} {2.5 1024}]"
	if got := fmt.Sprint(top.Series[0].Points); got != want {
		t.Errorf("threshold steps %s, want %s", got, want)
	}
	if got := names(bottom); !slices.Equal(got, []string{"2KiB-4KiB", "64KiB up"}) {
		t.Errorf("share lines %v", got)
	}
	// The class's third interval carried nothing: no step is drawn there.
	if got := fmt.Sprint(bottom.Series[0].Points); got != "[{0 0.75} {1 0.75} {1 0.25} {2 0.25}]" {
		t.Errorf("eager share of 2KiB-4KiB: %s", got)
	}
	if _, err := f.Save(t.TempDir(), DefaultWidthPx, DefaultHeightPx, "png"); err != nil {
		t.Fatal(err)
	}
}
