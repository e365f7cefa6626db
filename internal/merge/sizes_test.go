package merge

import (
	"math"
	"testing"

	"github.com/kvbench/kvbench/internal/figure/figuretest"
	"github.com/kvbench/kvbench/internal/results"
)

// Two ranks' size classes merge exactly: each class's count and bytes are
// the ranks' sums and its percentiles the merged histogram's, and the mix
// of sizes sums its classes and protocols and takes the shares anew.
func TestMergeSizeClasses(t *testing.T) {
	parts := ranks(t, 2, func(i int, r *results.Run) {
		for k := range r.Cells {
			c := &r.Cells[k]
			figuretest.Samples["size_classes"](t, c)
			figuretest.Samples["sizes"](t, c)
			if i == 1 { // the second rank sent more large values
				c.Sizes.Protocols["rendezvous"] = results.ProtocolShare{Count: 300, Bytes: 300 << 20}
			}
		}
	})
	_, logs, warnings, err := Runs(parts)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("%v, warnings %v", err, warnings)
	}
	for k, cl := range logs {
		a, b, got := parts[0].Run.Cells[k], parts[1].Run.Cells[k], cl.Cell
		if len(got.SizeClasses) != len(a.SizeClasses) {
			t.Fatalf("%s: %d classes, want %d", got.Name(), len(got.SizeClasses), len(a.SizeClasses))
		}
		for j, sc := range got.SizeClasses {
			ha, _ := results.DecodeHistogram(a.SizeClasses[j].Histogram)
			hb, _ := results.DecodeHistogram(b.SizeClasses[j].Histogram)
			ha.Merge(hb)
			if sc.Class != a.SizeClasses[j].Class || sc.Count != a.SizeClasses[j].Count+b.SizeClasses[j].Count ||
				sc.Bytes != a.SizeClasses[j].Bytes+b.SizeClasses[j].Bytes || sc.P99 != ha.ValueAtQuantile(99) || sc.P50 != ha.ValueAtQuantile(50) {
				t.Errorf("%s class %d: %+v", got.Name(), sc.Class, sc)
			}
		}
		r := got.Sizes.Protocols["rendezvous"]
		if got.Sizes.Classes[64] != 200 || r.Count != 400 || math.Abs(r.Requests-400.0/600) > 1e-12 || got.Sizes.Law[64] != 0.5 {
			t.Errorf("%s: sizes %+v", got.Name(), got.Sizes)
		}
	}
}
