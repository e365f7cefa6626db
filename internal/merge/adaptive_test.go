package merge

import (
	"reflect"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
)

// The ranks' adaptive timelines merge interval by interval: each class's
// requests and switches sum, a class one rank alone carried included, a
// rank whose phase closed fewer intervals adds nothing to the later
// ones, and each threshold is the median of the ranks that had the
// interval, the lower of the middle two.
func TestMergeAdaptive(t *testing.T) {
	timelines := []*results.AdaptiveTimeline{
		{IntervalNs: 1e9, StartThreshold: 4096, Thresholds: []int64{4096, 1024, 1024},
			Classes: []results.AdaptiveClass{{Lower: 64, Upper: 128, Eager: []uint64{1, 2, 3}, Rendezvous: []uint64{0, 1, 0}, Switches: 1}}},
		{IntervalNs: 1e9, StartThreshold: 4096, Thresholds: []int64{4096, 4096},
			Classes: []results.AdaptiveClass{
				{Lower: 64, Upper: 128, Eager: []uint64{10, 20}, Rendezvous: []uint64{5, 5}},
				{Lower: 65536, Eager: []uint64{0, 0}, Rendezvous: []uint64{7, 8}},
			}},
		{IntervalNs: 1e9, StartThreshold: 2048, Thresholds: []int64{2048, 512, 256},
			Classes: []results.AdaptiveClass{{Lower: 64, Upper: 128, Eager: []uint64{100, 0, 0}, Rendezvous: []uint64{0, 100, 100}, Switches: 2}}},
	}
	want := &results.AdaptiveTimeline{IntervalNs: 1e9, StartThreshold: 4096, Thresholds: []int64{4096, 1024, 256},
		Classes: []results.AdaptiveClass{
			{Lower: 64, Upper: 128, Eager: []uint64{111, 22, 3}, Rendezvous: []uint64{5, 106, 100}, Switches: 3},
			{Lower: 65536, Eager: []uint64{0, 0, 0}, Rendezvous: []uint64{7, 8, 0}},
		}}
	_, logs, warnings, err := Runs(ranks(t, 3, func(i int, r *results.Run) {
		for k := range r.Cells {
			r.Cells[k].Adaptive = timelines[i].Clone()
		}
	}))
	if err != nil || len(warnings) != 0 {
		t.Fatalf("%v, warnings %v", err, warnings)
	}
	for _, cl := range logs {
		if got := cl.Cell.Adaptive; !reflect.DeepEqual(got, want) {
			t.Errorf("%s merged to %+v, want %+v", cl.Cell.Name(), got, want)
		}
	}
}
