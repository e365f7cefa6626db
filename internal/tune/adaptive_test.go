package tune

import (
	"math"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/stats"
	"github.com/kvbench/kvbench/rdmakv"
)

// adaptiveConfig is wholeConfig comparing the adaptive policy.
func adaptiveConfig(mem ...Memory) Config {
	cfg := wholeConfig(mem...)
	cfg.Workload.Adaptive = true
	return cfg
}

// The policy is one more entry in each round's rotation: measured once a
// round, its place rotating with the candidates', and counted in the
// progress's total.
func TestAdaptiveRotatedWithCandidates(t *testing.T) {
	f := &thresholds{P50: map[int][]float64{256: steady(1000), 1024: steady(1000), 4096: steady(1000), 16384: steady(1000), AdaptiveThreshold: steady(1000)}}
	cfg := adaptiveConfig()
	cfg.Repeats = 3
	var last Progress
	cfg.Progress = func(p Progress) { last = p }
	w := mustRun(t, cfg, f).Loads[0].Workload
	want := "256 1024 4096 16384 -1 1024 4096 16384 -1 256 4096 16384 -1 256 1024"
	if got := strings.Join(f.calls, " "); got != want {
		t.Errorf("order %s, want %s", got, want)
	}
	if last.Done != 15 || last.Total != 15 {
		t.Errorf("progress %d of %d, want 15 of 15", last.Done, last.Total)
	}
	if a := w.Adaptive; a == nil || a.Threshold != AdaptiveThreshold || len(a.Samples) != 3 || w.Candidate(AdaptiveThreshold) != nil {
		t.Errorf("adaptive %+v, among the candidates %v", a, w.Candidate(AdaptiveThreshold))
	}
}

// The policy is never chosen, however far ahead: the choice is among the
// fixed thresholds, and the policy is compared with it, here also the
// default.
func TestAdaptiveNeverChosen(t *testing.T) {
	f := &thresholds{P50: map[int][]float64{256: steady(3000), 1024: steady(2500), 4096: {1500, 1550, 1520, 1500, 1510},
		16384: steady(2800), AdaptiveThreshold: {500, 520, 510, 505, 515}}}
	res := mustRun(t, adaptiveConfig(), f)
	w := res.Loads[0].Workload
	if w.Chosen != 4096 || w.Best != 4096 || res.Recommended != 4096 || len(w.Candidates) != 4 {
		t.Fatalf("chose %d (best %d, recommended %d) of %d candidates, want 4KiB of 4", w.Chosen, w.Best, res.Recommended, len(w.Candidates))
	}
	a := w.Adaptive
	if a.Status != Measured || a.P50 != 510 || a.P99 != 1020 || a.Value != 510 || a.Versus != "" {
		t.Errorf("adaptive %s: p50 %g p99 %g value %g versus %q", a.Status, a.P50, a.P99, a.Value, a.Versus)
	}
	want := Comparison{Threshold: 4096, Value: 1510, Ratio: 510.0 / 1510, Record: Record{Wins: 5, P: stats.SignTestP(5, 5), Versus: VsBetter}}
	if a.VsChosen == nil || *a.VsChosen != want {
		t.Errorf("vs chosen %+v, want %+v", a.VsChosen, want)
	}
	if a.VsDefault == nil || *a.VsDefault != want {
		t.Errorf("vs default %+v, want %+v (the chosen)", a.VsDefault, want)
	}
}

// With a chosen threshold other than the default, the policy is
// compared with each, round by round.
func TestAdaptiveAgainstChosenAndDefault(t *testing.T) {
	f := &thresholds{P50: map[int][]float64{256: steady(3000), 1024: steady(1000), 4096: steady(2000), 16384: steady(2500),
		AdaptiveThreshold: {1010, 990, 1020, 980, 1030}}}
	a := mustRun(t, adaptiveConfig(), f).Loads[0].Workload.Adaptive
	chosen := Comparison{Threshold: 1024, Value: 1000, Ratio: 1.01, Record: Record{Wins: 2, Losses: 3, P: stats.SignTestP(5, 3), Versus: VsTie}}
	def := Comparison{Threshold: 4096, Value: 2000, Ratio: 0.505, Record: Record{Wins: 5, P: stats.SignTestP(5, 5), Versus: VsBetter}}
	if a.VsChosen == nil || *a.VsChosen != chosen {
		t.Errorf("vs chosen %+v, want %+v", a.VsChosen, chosen)
	}
	if a.VsDefault == nil || *a.VsDefault != def {
		t.Errorf("vs default %+v, want %+v", a.VsDefault, def)
	}
}

// Off, the policy is neither measured nor counted.
func TestAdaptiveOff(t *testing.T) {
	f := &thresholds{P50: map[int][]float64{256: steady(3000), 1024: steady(2500), 4096: steady(2000), 16384: steady(1000)}}
	w := mustRun(t, wholeConfig(), f).Loads[0].Workload
	if w.Adaptive != nil || strings.Contains(strings.Join(f.calls, " "), "-1") {
		t.Errorf("adaptive %+v, calls %v", w.Adaptive, f.calls)
	}
	on, off := adaptiveConfig(), wholeConfig()
	if d := on.Measurements() - off.Measurements(); d != on.Repeats {
		t.Errorf("the policy adds %d measurements, want %d", d, on.Repeats)
	}
}

// A policy the target refuses is asked once and not compared; the
// candidates are chosen among as ever, and no candidate is said refused.
func TestAdaptiveRefused(t *testing.T) {
	f := &thresholds{P50: map[int][]float64{256: steady(3000), 1024: steady(2500), 4096: steady(2000), 16384: steady(1000)},
		Refuse: map[int]bool{AdaptiveThreshold: true}}
	w := mustRun(t, adaptiveConfig(), f).Loads[0].Workload
	a := w.Adaptive
	if a.Status != Refused || a.VsChosen != nil || a.VsDefault != nil || w.Chosen != 16384 || w.Refusal != "" {
		t.Errorf("adaptive %s (vs chosen %v, vs default %v), chose %d, refusal %q", a.Status, a.VsChosen, a.VsDefault, w.Chosen, w.Refusal)
	}
	if n := strings.Count(strings.Join(f.calls, " "), "-1"); n != 1 {
		t.Errorf("asked for the refused policy %d times", n)
	}
}

// The policy's receive memory is that of its largest threshold, which
// the embedded server must admit; --max-memory rules out candidates,
// not the policy, which is measured whatever it needs.
func TestAdaptiveMemory(t *testing.T) {
	cfg := adaptiveConfig()
	cfg.Workload.MaxMemory = 6 << 20
	l := Load{Connections: 1, Depth: 1}
	err := cfg.Workload.AddMemory([]Load{l}, 16, func(th, _, _, _ int) (int64, int64, error) {
		if th == AdaptiveThreshold {
			return 64 << 20, 1 << 20, nil
		}
		return int64(th) << 8, int64(th), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.MaxEagerThreshold(); got != rdmakv.DefaultMaxEager {
		t.Errorf("max eager threshold %d, want the policy's %d", got, rdmakv.DefaultMaxEager)
	}
	f := &thresholds{P50: map[int][]float64{256: steady(3000), 1024: steady(2500), 4096: steady(2000), 16384: steady(1000), AdaptiveThreshold: steady(900)}}
	w := mustRun(t, cfg, f).Loads[0].Workload
	if a := w.Adaptive; a.Status != Measured || !a.MemoryKnown || a.ServerMemory != 64<<20 || a.ClientMemory != 1<<20 || len(a.Samples) != 5 {
		t.Errorf("adaptive %s with %d samples, memory %d + %d (known %v)", a.Status, len(a.Samples), a.ServerMemory, a.ClientMemory, a.MemoryKnown)
	}
	if c := w.Candidate(16384); c.Status != Measured || c.Memory() != 16384<<8+16384 {
		t.Errorf("16KiB %s, memory %d", c.Status, c.Memory())
	}
}

// Under a latency goal the policy gets a capacity search of its own each
// round, stepped with the candidates', and is compared by capacity; it
// is not chosen though its capacity is the highest.
func TestAdaptiveSLOSearched(t *testing.T) {
	f := &queued{Service: map[int]float64{256: 30e3, 1024: 10e3, 4096: 15e3, 16384: 20e3, AdaptiveThreshold: 5e3}}
	cfg := sloConfig(1)
	cfg.Workload.Adaptive = true
	w := mustRun(t, cfg, f).Loads[0].Workload
	a := w.Adaptive
	if w.Chosen != 1024 || a == nil || len(a.Samples) != 1 || len(a.Samples[0].Search) < 3 {
		t.Fatalf("chose %d, adaptive %+v", w.Chosen, a)
	}
	model := f.capacity(AdaptiveThreshold, p99Goal.Goal)
	if math.Abs(a.Capacity-model)/model > SearchTolerance || a.Value != a.Capacity {
		t.Errorf("adaptive capacity %.0f (value %.0f), model %.0f", a.Capacity, a.Value, model)
	}
	v, chosen := a.VsChosen, w.Candidate(1024)
	if v == nil || v.Threshold != 1024 || v.Value != chosen.Capacity || v.Ratio != a.Capacity/chosen.Capacity || v.Versus != VsBetter {
		t.Errorf("vs chosen %+v, chosen capacity %.0f", v, chosen.Capacity)
	}
	if v := a.VsDefault; v == nil || v.Threshold != 4096 || v.Versus != VsBetter {
		t.Errorf("vs default %+v", v)
	}
	// Each pass of steps measures every search still going, the policy's
	// after the candidates' in the first round.
	if got := strings.Join(f.calls[:5], " "); got != "256 1024 4096 16384 -1" {
		t.Errorf("closed loops %s, want the candidates then the policy", got)
	}
	if n := strings.Count(strings.Join(f.calls, " "), "-1@"); n != len(a.Samples[0].Search)-1 {
		t.Errorf("%d open-loop steps of the policy, its search has %d", n, len(a.Samples[0].Search)-1)
	}
}

// Errors and progress name the policy, not a threshold of -1 bytes.
func TestAdaptiveDescribed(t *testing.T) {
	if got := describe(Request{Whole: true, Threshold: AdaptiveThreshold, Load: Load{Connections: 1, Depth: 1}}); got != "the workload under the adaptive threshold" {
		t.Errorf("described as %q", got)
	}
	if ThresholdName(AdaptiveThreshold) != "adaptive" || ThresholdName(4096) != "4KiB" {
		t.Errorf("names %q, %q", ThresholdName(AdaptiveThreshold), ThresholdName(4096))
	}
}
