package tune_test

import (
	"testing"

	"github.com/kvbench/kvbench/internal/plot"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/rdmakv"
)

// The adaptive policy on fixed sizes as tune.txt and tune.json keep it:
// per op a table of the policy against the threshold's and the profile's
// protocol and the winner, per load the worst against the threshold and
// the sizes where exploring costs more than the tolerance; tune.json
// reads back with every comparison; the curves draw it.
func TestSaveGoldenSizeAdaptive(t *testing.T) {
	getM, setM := tune.NewLinear(7), tune.NewLinear(8)
	getM.RdvBase = 20000     // get's own threshold 32KiB, set's 8KiB
	setM.AdaptiveCost = 0.05 // get's policy measures as the winner does
	res := run(t, tune.Config{Ops: []rdmakv.Op{rdmakv.OpGet, rdmakv.OpSet}, Sizes: tune.Pow2(1024, 65536), Repeats: 5, KeySize: 16, Adaptive: true},
		tune.ByOp(getM, setM))
	txt, back := saved(t, res, "tune-adaptive")
	contains(t, txt, "get: adaptive by p50 against the threshold 8KiB, and the profile's 32KiB",
		"adaptive within 6.5% of the best fixed threshold at every size; worst 1.06x at 16KiB set", "cost of exploring: adaptive within 2% of the winner at 7 of 14 sizes")
	pt, want := back.Loads[0].Ops[0].Point(16384), res.Loads[0].Ops[0].Point(16384)
	if a := pt.Adaptive; a == nil || len(a.Samples) != 5 || a.Value != want.Adaptive.Value ||
		*a.VsChosen != *want.Adaptive.VsChosen || *a.VsProfile != *want.Adaptive.VsProfile || *a.VsWinner != *want.Adaptive.VsWinner {
		t.Errorf("tune.json round trip: %+v, want %+v", a, want.Adaptive)
	}
	// tune-get.png draws the policy as a third curve beside the protocols.
	figs := plot.TuneFigures(res)
	if s := figs[0].Panels[0].Series; len(s) != 3 || s[2].Name != tune.AdaptiveName || len(s[2].Points) != 7 {
		t.Errorf("tune-get's curves: %+v", s)
	}
}
