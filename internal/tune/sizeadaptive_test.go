package tune

import (
	"math"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// On fixed sizes the policy is one more entry in each (op, size)'s
// rotation: measured once a round beside the two protocols, each of the
// three taking every place in turn, and counted in the progress's total.
func TestSizeAdaptiveRotated(t *testing.T) {
	m := newLinear(1)
	cfg := Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{1024, 64}, Repeats: 3, Adaptive: true}
	var last Progress
	cfg.Progress = func(p Progress) { last = p }
	res := mustRun(t, cfg, m)
	want := "get/64/eager get/64/rendezvous get/64/adaptive get/1024/eager get/1024/rendezvous get/1024/adaptive " +
		"get/64/rendezvous get/64/adaptive get/64/eager get/1024/rendezvous get/1024/adaptive get/1024/eager " +
		"get/64/adaptive get/64/eager get/64/rendezvous get/1024/adaptive get/1024/eager get/1024/rendezvous"
	if got := strings.Join(m.calls, " "); got != want {
		t.Errorf("order\n%s\nwant\n%s", got, want)
	}
	if last.Done != 18 || last.Total != 18 || cfg.Measurements() != 18 {
		t.Errorf("progress %d of %d (%d planned), want 18 of 18", last.Done, last.Total, cfg.Measurements())
	}
	for _, pt := range res.Loads[0].Ops[0].Points {
		if a := pt.Adaptive; a == nil || a.Status != Measured || len(a.Samples) != 3 || a.Threshold != AdaptiveThreshold {
			t.Errorf("%d: adaptive %+v", pt.Size, a)
		}
	}
}

// sizeAdaptiveRun tunes get over 64B to 1MiB, crossing at 8KiB, with the
// policy cost slower than the faster protocol at every size.
func sizeAdaptiveRun(t *testing.T, cost, sigma float64) *Result {
	m := newLinear(5)
	m.AdaptiveCost, m.Sigma = cost, sigma
	return mustRun(t, Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 1<<20), Repeats: 5, KeySize: 16, Adaptive: true}, m)
}

// A policy that measures as the winner does at every size ties with the
// threshold's protocol, the profile's and the winner's, at a ratio of 1.
func TestSizeAdaptiveEqualsWinner(t *testing.T) {
	res := sizeAdaptiveRun(t, 0, 0)
	if res.Recommended != 8192 {
		t.Fatalf("recommended %d, want 8KiB", res.Recommended)
	}
	for _, pt := range res.Loads[0].Ops[0].Points {
		a, want := pt.Adaptive, "eager"
		if pt.Size >= 8192 {
			want = "rendezvous"
		}
		for name, v := range map[string]*Comparison{"threshold": a.VsChosen, "profile": a.VsProfile, "winner": a.VsWinner} {
			if v == nil || v.Protocol != want || v.Ratio != 1 || v.Wins+v.Losses != 0 || v.Versus != VsTie || v.Shortfall(ObjP50) != 0 {
				t.Errorf("%d: vs %s %+v, want a tie with %s at 1x", pt.Size, name, v, want)
			}
		}
		if a.VsChosen.Threshold != 8192 || a.VsProfile.Threshold != 8192 || a.VsWinner.Threshold != 0 {
			t.Errorf("%d: thresholds %d, %d, %d", pt.Size, a.VsChosen.Threshold, a.VsProfile.Threshold, a.VsWinner.Threshold)
		}
	}
}

// A policy 10% slower than the winner at every size loses every round
// to it, beyond ExploreTolerance.
func TestSizeAdaptiveClearlyWorse(t *testing.T) {
	res := sizeAdaptiveRun(t, 0.10, 0.01)
	for _, pt := range res.Loads[0].Ops[0].Points {
		v := pt.Adaptive.VsChosen
		if v == nil || v.Versus != VsWorse || v.Wins != 0 || v.Losses != 5 || math.Abs(v.Shortfall(ObjP50)-0.10) > 0.05 {
			t.Errorf("%d: vs threshold %+v, want worse by about 10%%", pt.Size, v)
		}
		if w := pt.Adaptive.VsWinner; w == nil || w.Shortfall(ObjP50) <= ExploreTolerance {
			t.Errorf("%d: vs winner %+v, want beyond the tolerance", pt.Size, w)
		}
	}
}

// Where the profile gives an op its own threshold above the load's, the
// sizes between go by different protocols, and each comparison reads its
// own protocol's rounds.
func TestSizeAdaptiveProfileDiffers(t *testing.T) {
	setM, getM := newLinear(7), newLinear(8)
	getM.RdvBase = 20000 // get crosses near 20KiB: threshold 32KiB, set's 8KiB
	res := mustRun(t, Config{Ops: []rdmakv.Op{rdmakv.OpGet, rdmakv.OpSet}, Sizes: pow2(64, 1<<20), Repeats: 5, Adaptive: true}, byOp(getM, setM))
	l := res.Loads[0]
	if l.Recommended != 8192 || l.Ops[0].Threshold != 32768 {
		t.Fatalf("recommended %d, get's own %d: want 8KiB and 32KiB", l.Recommended, l.Ops[0].Threshold)
	}
	pt := l.Ops[0].Point(16384)
	a := pt.Adaptive
	if a.VsChosen.Protocol != "rendezvous" || a.VsChosen.Value != pt.RdvValue || a.VsProfile.Protocol != "eager" ||
		a.VsProfile.Threshold != 32768 || a.VsProfile.Value != pt.EagerValue {
		t.Errorf("get 16KiB: vs threshold %+v, vs profile %+v", a.VsChosen, a.VsProfile)
	}
}

// Off, the policy is neither measured nor counted nor compared.
func TestSizeAdaptiveOff(t *testing.T) {
	m := newLinear(1)
	cfg := Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 1024}, Repeats: 2}
	res := mustRun(t, cfg, m)
	if strings.Contains(strings.Join(m.calls, " "), "adaptive") || res.Loads[0].Ops[0].Points[0].Adaptive != nil {
		t.Errorf("measured the policy: %v", m.calls)
	}
	on := cfg
	on.Adaptive = true
	if cfg.Measurements() != 8 || on.Measurements() != 12 {
		t.Errorf("measurements %d off, %d on; want 8 and 12", cfg.Measurements(), on.Measurements())
	}
	on.Workload = &Workload{Thresholds: []int{256, 1024}}
	if err := on.Validate(); err == nil || !strings.Contains(err.Error(), "adaptive on fixed sizes") {
		t.Errorf("adaptive on a distribution's config: %v", err)
	}
}

// Under a latency goal the policy gets a capacity search of its own at
// each size, stepped with the protocols', and is compared by capacity,
// by the margin with one search. The model serves it as rendezvous: it
// ties with rendezvous where that wins and is worse where eager does.
func TestSizeAdaptiveCapacity(t *testing.T) {
	m := newLoadModel(3)
	m.Sigma = 0
	slo := &SLO{Percentile: 99, Goal: 200e3}
	res := mustRun(t, Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{512, 8192}, Repeats: 1, SLO: slo, Measure: 1, Adaptive: true}, m)
	for _, pt := range res.Loads[0].Ops[0].Points {
		a := pt.Adaptive
		want := m.capacity(Request{Size: pt.Size, Protocol: Rendezvous, Load: Load{Connections: 1, Depth: 1}}, slo.Goal)
		if len(a.Samples) != 1 || len(a.Samples[0].Search) < 2 || math.Abs(a.Capacity-want)/want > SearchTolerance {
			t.Errorf("%d: adaptive capacity %.0f after %d searches, model %.0f", pt.Size, a.Capacity, len(a.Samples), want)
		}
		verdict := map[Winner]Versus{WinEager: VsWorse, WinRendezvous: VsTie}[pt.Winner]
		if v := a.VsWinner; v == nil || v.Versus != verdict || v.Protocol != string(pt.Winner) {
			t.Errorf("%d: vs winner %s %+v, want %s", pt.Size, pt.Winner, v, verdict)
		}
	}
}
