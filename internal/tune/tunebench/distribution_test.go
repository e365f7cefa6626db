package tunebench

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/sizegen"
	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// distWorkload is planWorkload with sizes drawn from spec and the
// candidate thresholds given.
func distWorkload(t *testing.T, spec string, thresholds ...workload.Threshold) *workload.Workload {
	t.Helper()
	d, err := workload.NewDistribution(spec)
	if err != nil {
		t.Fatal(err)
	}
	w := planWorkload()
	w.Values, w.Thresholds = workload.Values{Distribution: d}, thresholds
	return w
}

// A distribution tunes over the workload's thresholds, each with its
// receive memory at each load (where the build can say), and no sizes
// unless asked to predict.
func TestPlanDistribution(t *testing.T) {
	w := distWorkload(t, "weighted: {256B: 50, 8KiB: 50}", 16<<10, 1<<10)
	cfg, _, err := Plan{Connections: []int{1, 4}}.Config(w)
	if err != nil {
		t.Fatal(err)
	}
	wl := cfg.Workload
	if wl == nil || wl.Distribution != "weighted: {256B: 50, 8KiB: 50}" || wl.MaxSize != 8192 || fmt.Sprint(wl.Thresholds) != "[1024 16384]" || len(cfg.Sizes) != 0 {
		t.Fatalf("workload %+v, sizes %v", wl, cfg.Sizes)
	}
	if n := len(wl.Memory); n != 0 && n != 6 {
		t.Errorf("%d memory entries for 2 candidates and the adaptive policy at 2 loads", n)
	}
	cfg, _, err = Plan{Predict: true}.Config(w)
	if err != nil || fmt.Sprint(cfg.Sizes) != "[256 8192]" {
		t.Errorf("predict: sizes %v, %v", cfg.Sizes, err)
	}
	// Under a latency goal, one capacity search a candidate, the single
	// sizes searched too when asked to predict.
	cfg, _, err = Plan{SLO: "p99=1ms", Predict: true}.Config(w)
	if err != nil || cfg.SLO == nil || cfg.Repeats != 1 || cfg.Workload == nil || len(cfg.Sizes) != 2 {
		t.Errorf("--slo --predict: slo %v, repeats %d, workload %v, sizes %v: %v", cfg.SLO, cfg.Repeats, cfg.Workload, cfg.Sizes, err)
	}
	w.Thresholds = nil
	if cfg, _, err = (Plan{}).Config(w); err != nil || fmt.Sprint(cfg.Workload.Thresholds) != fmt.Sprint(tune.Ladder(8192)) {
		t.Errorf("no thresholds: candidates %v, %v", cfg.Workload.Thresholds, err)
	}
}

// The adaptive policy is compared unless turned off; "adaptive" among
// the thresholds asks for it and is no candidate, and with no fixed
// threshold beside it the ladder's are the candidates. Its memory is
// computed with the candidates' where the build can say.
func TestPlanDistributionAdaptive(t *testing.T) {
	w := distWorkload(t, "weighted: {256B: 50, 8KiB: 50}", 16<<10, workload.AdaptiveThreshold, 1<<10)
	cfg, _, err := Plan{}.Config(w)
	if err != nil || !cfg.Workload.Adaptive || fmt.Sprint(cfg.Workload.Thresholds) != "[1024 16384]" {
		t.Fatalf("adaptive %v, candidates %v: %v", cfg.Workload.Adaptive, cfg.Workload.Thresholds, err)
	}
	if n := len(cfg.Workload.Memory); n != 0 && n != 3 {
		t.Errorf("%d memory entries for 2 candidates and the policy", n)
	}
	if cfg.MaxEagerThreshold() != rdmakv.DefaultMaxEager {
		t.Errorf("the server's max eager %d: the policy may choose up to %d", cfg.MaxEagerThreshold(), rdmakv.DefaultMaxEager)
	}
	off := false
	if cfg, _, err = (Plan{Adaptive: &off}).Config(w); err != nil || cfg.Workload.Adaptive || cfg.MaxEagerThreshold() != 16<<10 {
		t.Errorf("--adaptive=false: adaptive %v, max eager %d: %v", cfg.Workload.Adaptive, cfg.MaxEagerThreshold(), err)
	}
	w.Thresholds = []workload.Threshold{workload.AdaptiveThreshold}
	if cfg, _, err = (Plan{}).Config(w); err != nil || !cfg.Workload.Adaptive || fmt.Sprint(cfg.Workload.Thresholds) != fmt.Sprint(tune.Ladder(8192)) {
		t.Errorf("adaptive alone: candidates %v, %v", cfg.Workload.Thresholds, err)
	}
}

// On fixed sizes the policy is compared at each size unless turned off,
// and the embedded server admits the largest threshold it may choose.
func TestPlanFixedAdaptive(t *testing.T) {
	cfg, _, err := Plan{}.Config(planWorkload())
	if err != nil || !cfg.Adaptive || cfg.Workload != nil || cfg.MaxEagerThreshold() < rdmakv.DefaultMaxEager {
		t.Errorf("adaptive %v, max eager %d: %v", cfg.Adaptive, cfg.MaxEagerThreshold(), err)
	}
	off := false
	if cfg, _, err := (Plan{Adaptive: &off}).Config(planWorkload()); err != nil || cfg.Adaptive {
		t.Errorf("--adaptive=false on fixed sizes: adaptive %v, %v", cfg.Adaptive, err)
	}
}

func TestPlanDistributionRefusals(t *testing.T) {
	if _, _, err := (Plan{Predict: true}).Config(distWorkload(t, "weighted: {256B: 1}", 1<<10, 16<<10)); err == nil || !strings.Contains(err.Error(), "--predict: 1 power-of-two size class") {
		t.Errorf("--predict on one size class: %v", err)
	}
	if _, _, err := (Plan{MaxMemory: 1 << 20}).Config(planWorkload()); err == nil || !strings.Contains(err.Error(), "fixed sizes") {
		t.Errorf("--max-memory on fixed sizes: %v", err)
	}
}

// Each class that holds 1% or more stands by its median.
func TestClassSizes(t *testing.T) {
	law, err := sizegen.NewWeighted([]sizegen.Weight{{Size: 100, Weight: 1}, {Size: 120, Weight: 1}, {Size: 126, Weight: 1},
		{Size: 5000, Weight: 96.5}, {Size: 70000, Weight: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(classSizes(law)); got != "[120 5000]" {
		t.Errorf("class sizes %s, want [120 5000] (70000 holds under 1%%)", got)
	}
	u, _ := sizegen.NewUniform(1000, 3000)
	if got := fmt.Sprint(classSizes(u)); got != "[1011 1535 2524]" {
		t.Errorf("uniform class sizes %s", got)
	}
}

// wholeMeasurer measures whole-workload requests of a mix of gets and
// sets, sizes drawn from two, on fake.
func wholeMeasurer(t *testing.T, fake *benchtest.Fake) *Measurer {
	t.Helper()
	d, err := workload.NewDistribution("weighted: {256B: 50, 8KiB: 50}")
	if err != nil {
		t.Fatal(err)
	}
	cfg := benchConfig(fake)
	cfg.Sizes, cfg.SizesSpec, cfg.ValueSizes = d.Law(), d.Spec, []int{int(d.MeanSize())}
	cfg.Mix, cfg.Preload = workload.Mix{Get: 0.5, Set: 0.5}, true
	return &Measurer{Config: cfg}
}

// A whole-workload request runs the workload's own mix and law of sizes
// at the threshold asked, and its sample merges every op and protocol:
// all the measure phase's operations, both protocols used.
func TestMeasureWhole(t *testing.T) {
	fake := &benchtest.Fake{Record: true}
	m := wholeMeasurer(t, fake)
	s, err := m.Measure(context.Background(), tune.Request{Whole: true, Threshold: 4096, Load: tune.Load{Connections: 1, Depth: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Count != 200 || s.P50 <= 0 || s.OpsPerSec <= 0 || s.BytesPerSec <= 0 {
		t.Errorf("sample %+v, want the 200 operations of the measure phase", s)
	}
	conns := fake.Conns()
	ops := map[bench.Op]bool{}
	for _, r := range conns[len(conns)-1].Ops() {
		ops[r.Op] = true
	}
	if !ops[bench.OpGet] || !ops[bench.OpSet] {
		t.Errorf("the workload's mix was not run: %v", ops)
	}
}

// tune's adaptive threshold dials the store's, whose clients apply the
// adaptive policy, and its sample is measured as a threshold's.
func TestMeasureWholeAdaptive(t *testing.T) {
	fake := &benchtest.Fake{Record: true}
	s, err := wholeMeasurer(t, fake).Measure(context.Background(), tune.Request{Whole: true, Threshold: tune.AdaptiveThreshold, Load: tune.Load{Connections: 1, Depth: 1}})
	if err != nil {
		t.Fatal(err)
	}
	conns := fake.Conns()
	if c := conns[len(conns)-1]; c.Threshold() != store.AdaptiveThreshold || s.Count != 200 {
		t.Errorf("dialed threshold %d, %d operations; want %d, 200", c.Threshold(), s.Count, store.AdaptiveThreshold)
	}
}

// The workload's adaptive settings go with the policy tune compares: the
// largest threshold it may choose sizes the server, and the report says
// what was set.
func TestPlanDistributionAdaptiveSettings(t *testing.T) {
	w := distWorkload(t, "weighted: {256B: 50, 8KiB: 50}", 1<<10, 16<<10, workload.AdaptiveThreshold)
	w.Adaptive = &workload.Adaptive{Explore: 0.05, MaxThreshold: 128 << 10}
	cfg, _, err := Plan{}.Config(w)
	if err != nil {
		t.Fatal(err)
	}
	wl := cfg.Workload
	if !wl.Adaptive || wl.AdaptiveMaxThreshold != 128<<10 || wl.AdaptiveSettings != "adaptive: {explore: 0.05, max_threshold: 128KiB}" {
		t.Errorf("adaptive %v, max threshold %d, settings %q", wl.Adaptive, wl.AdaptiveMaxThreshold, wl.AdaptiveSettings)
	}
	if got := cfg.MaxEagerThreshold(); got != 128<<10 {
		t.Errorf("max eager threshold %d, want the policy's 128KiB", got)
	}
}
