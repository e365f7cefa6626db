package tunebench

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// planWorkload is a closed-loop workload of two sizes with a timed
// measure phase, as a tune is usually given.
func planWorkload() *workload.Workload {
	return &workload.Workload{
		Keys:   workload.Keys{Count: 16, Size: 16},
		Values: workload.Values{Sizes: []workload.Size{64 << 10, 256}},
		Mix:    workload.Mix{Get: 0.5, Set: 0.5},
		Phases: workload.Phases{Measure: workload.Phase{Duration: workload.Duration(2 * time.Second)}},
		Load:   workload.Load{Mode: "closed", Connections: 2, Depth: 4},
	}
}

// The ops are those listed, blanks ignored, each read as rdmakv's; else
// those the mix issues, else get and set. A name that is no op is an
// error naming it; one that is not tuned (delete) is Validate's to judge.
func TestSelectOps(t *testing.T) {
	get, set, del := rdmakv.OpGet, rdmakv.OpSet, rdmakv.OpDelete
	for _, c := range []struct {
		list string
		mix  workload.Mix
		want []rdmakv.Op
	}{
		{"", workload.Mix{Get: 0.9, Set: 0.1}, []rdmakv.Op{get, set}},
		{"", workload.Mix{Get: 1}, []rdmakv.Op{get}},
		{"", workload.Mix{Set: 0.5, Delete: 0.5}, []rdmakv.Op{set}},
		{"", workload.Mix{Delete: 1}, []rdmakv.Op{get, set}},
		{" set, ,get,", workload.Mix{Get: 1}, []rdmakv.Op{set, get}},
		{"delete", workload.Mix{Get: 1}, []rdmakv.Op{del}},
	} {
		if got, err := SelectOps(c.list, c.mix); err != nil || !slices.Equal(got, c.want) {
			t.Errorf("SelectOps(%q, %+v) = %v, %v; want %v", c.list, c.mix, got, err, c.want)
		}
	}
	if _, err := SelectOps("get,put", workload.Mix{}); err == nil || !strings.Contains(err.Error(), `op "put": want get, set or delete`) {
		t.Errorf("SelectOps(get,put): %v", err)
	}
}

// With nothing asked, a plan compares p50s at the workload's load, with
// the default repeats and level, over the workload's sizes in order, the
// adaptive policy compared beside the protocols.
func TestPlanDefaults(t *testing.T) {
	cfg, warnings, err := Plan{}.Config(planWorkload())
	if err != nil || len(warnings) != 0 {
		t.Fatalf("%v, warnings %q", err, warnings)
	}
	want := tune.Config{Ops: []rdmakv.Op{rdmakv.OpGet, rdmakv.OpSet}, Sizes: []int{256, 64 << 10}, Repeats: tune.DefaultRepeats, Alpha: tune.DefaultAlpha,
		KeySize: 16, Objective: tune.ObjP50, Loads: []tune.Load{{Connections: 2, Depth: 4}}, Adaptive: true, Measure: 2}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("config\n%+v, want\n%+v", cfg, want)
	}
}

// A latency goal compares capacities: one search unless more are asked
// for, and no objective unless one is given, which then conflicts.
func TestPlanSLO(t *testing.T) {
	cfg, warnings, err := Plan{SLO: "p99=1ms"}.Config(planWorkload())
	if err != nil || len(warnings) != 0 {
		t.Fatalf("%v, warnings %q", err, warnings)
	}
	if cfg.Repeats != 1 || cfg.Objective != "" || cfg.SLO == nil || cfg.SLO.Percentile != 99 || cfg.SLO.Goal != 1e6 {
		t.Errorf("repeats %d objective %q slo %+v, want one p99 <= 1ms search and no objective", cfg.Repeats, cfg.Objective, cfg.SLO)
	}
	three := 3
	if cfg, _, err := (Plan{SLO: "p99=1ms", Repeats: &three}).Config(planWorkload()); err != nil || cfg.Repeats != 3 {
		t.Errorf("repeats %d, %v: want the 3 asked for", cfg.Repeats, err)
	}
	p50 := "p50"
	if _, _, err := (Plan{SLO: "p99=1ms", Objective: &p50}).Config(planWorkload()); err == nil || !strings.Contains(err.Error(), "choose one") {
		t.Errorf("an objective with a goal: %v", err)
	}
}

// Listed loads are compared at every combination; an unlisted dimension
// is the workload's, an open loop's rate included, and a ramp has no
// fixed load to compare at.
func TestPlanLoads(t *testing.T) {
	cfg, _, err := Plan{Connections: []int{1, 4}, Depths: []int{1, 8}}.Config(planWorkload())
	want := []tune.Load{{Connections: 1, Depth: 1}, {Connections: 1, Depth: 8}, {Connections: 4, Depth: 1}, {Connections: 4, Depth: 8}}
	if err != nil || !slices.Equal(cfg.Loads, want) {
		t.Errorf("loads %v, %v; want %v", cfg.Loads, err, want)
	}
	w := planWorkload()
	w.Load = workload.Load{Mode: "open", Connections: 2, Depth: 1, Rate: 5000}
	cfg, _, err = Plan{Connections: []int{1, 2}}.Config(w)
	want = []tune.Load{{Connections: 1, Depth: 1, Rate: 5000}, {Connections: 2, Depth: 1, Rate: 5000}}
	if err != nil || !slices.Equal(cfg.Loads, want) {
		t.Errorf("open loop: loads %v, %v; want %v", cfg.Loads, err, want)
	}
	w.Load.Ramp = &workload.Ramp{}
	if _, _, err := (Plan{}).Config(w); err == nil || !strings.Contains(err.Error(), "load.ramp: tune compares at fixed loads") {
		t.Errorf("a ramp: %v", err)
	}
}

// Every problem is reported at once, before anything is measured.
func TestPlanRefuses(t *testing.T) {
	w := planWorkload()
	w.Phases.Measure = workload.Phase{Ops: 100}
	zero, p99 := 0.0, "p99"
	_, _, err := Plan{Ops: "get,delete", Alpha: &zero, Objective: &p99, SLO: "p75"}.Config(w)
	for _, want := range []string{"op delete: want get or set", "--alpha 0: want a significance level", "p75"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	_, _, err = Plan{Objective: &p99}.Config(w)
	if want := "phases.measure.ops 100: a p99 tune can compare needs at least 2000 operations per measurement (20 beyond the percentile)"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
	// Keys of drawn sizes leave no one key size to place single sizes'
	// thresholds by; a whole workload needs none, and its prediction
	// places them by the longest key.
	d, err := workload.NewDistribution("uniform: {min: 8, max: 64}")
	if err != nil {
		t.Fatal(err)
	}
	w.Keys.SizeDistribution, w.Keys.Size = d, 64
	const single = "measuring single sizes needs keys of one size"
	if _, _, err := (Plan{}).Config(w); err == nil || !strings.Contains(err.Error(), single) {
		t.Errorf("a tune of single sizes on drawn key sizes: %v", err)
	}
	whole := distWorkload(t, "weighted: {256B: 50, 8KiB: 50}", 1<<10, 16<<10)
	whole.Keys = w.Keys
	if _, _, err := (Plan{}).Config(whole); err != nil {
		t.Errorf("a whole-workload tune on drawn key sizes: %v", err)
	}
	if _, _, err := (Plan{Predict: true}).Config(whole); err != nil {
		t.Errorf("a whole-workload tune on drawn key sizes, predicting: %v", err)
	}
	w.Keys = planWorkload().Keys
	replay := planWorkload()
	replay.Values, replay.Trace = workload.Values{}, &workload.Trace{File: "t.csv", Format: "twitter", Speed: 1}
	if _, _, err := (Plan{}).Config(replay); err == nil || !strings.Contains(err.Error(), "trace: tune") {
		t.Errorf("a replay: %v, want it refused", err)
	}
	// A capacity search counts its own operations.
	if _, _, err := (Plan{SLO: "p99=1ms"}).Config(w); err != nil {
		t.Errorf("a capacity search on a counted measure phase: %v", err)
	}
}

func TestPlanWarnsWhenNoSizeCanBeDecided(t *testing.T) {
	three := 3
	_, warnings, err := Plan{Repeats: &three}.Config(planWorkload())
	want := []string{"with --repeats 3 no size can show a significant winner at --alpha 0.05; use 5 or more"}
	if err != nil || !slices.Equal(warnings, want) {
		t.Errorf("%v, warnings %q; want %q", err, warnings, want)
	}
}
