package figure

import (
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

// The note names each op's threshold at the phase's start and end, its
// changes and the classes' switches, once for the op's eager and
// rendezvous cells; cells without a timeline say nothing.
func TestAdaptiveNote(t *testing.T) {
	tl := &results.AdaptiveTimeline{StartThreshold: 4096, Thresholds: []int64{4096, 1024, 2048},
		Classes: []results.AdaptiveClass{{Lower: 1024, Switches: 2}, {Lower: 2048, Switches: 1}}}
	cell := func(op, proto string, a *results.AdaptiveTimeline) results.Cell {
		return results.Cell{Op: op, ValueSize: 1000, Protocol: proto, Adaptive: a}
	}
	cells := []results.Cell{cell("set", "eager", tl), cell("set", "rendezvous", tl), cell("get", "eager", nil)}
	want := "the adaptive policy's threshold at the measure phase's start and end: set 1000B: 4KiB to 2KiB, 2 changes, classes switched 3 times"
	if got := adaptiveNote(cells); got != want {
		t.Errorf("note %q,\nwant %q", got, want)
	}
	if got := adaptiveNote(cells[2:]); got != "" {
		t.Errorf("without a timeline: %q", got)
	}
}
