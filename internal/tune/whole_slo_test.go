package tune

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
)

// queued is a fake system measured whole under a latency goal: at each
// candidate threshold the workload's operations take Service ns on one
// worker, and an open loop queues as queueSample says, so that the
// goal's capacity differs by threshold. A threshold in Refuse is
// refused. calls are "threshold" for a closed loop, "threshold@rate" for
// an open one.
type queued struct {
	Service map[int]float64
	Refuse  map[int]bool
	calls   []string
}

func (f *queued) Measure(_ context.Context, r Request) (Sample, error) {
	if !r.Whole {
		return Sample{}, fmt.Errorf("a per-size request (%s) on a distribution", describe(r))
	}
	call := fmt.Sprint(r.Threshold)
	if r.Load.Open() {
		call += fmt.Sprintf("@%.0f", r.Load.Rate)
	}
	f.calls = append(f.calls, call)
	if f.Refuse[r.Threshold] {
		return Sample{}, fmt.Errorf("above max eager: %w", ErrUnsupported)
	}
	return queueSample(f.Service[r.Threshold], r, 5000), nil
}

// capacity is the model's capacity at threshold under goal, at one
// connection of depth 1.
func (f *queued) capacity(threshold int, goal float64) float64 {
	return queueCapacity(f.Service[threshold], Load{Connections: 1, Depth: 1}, goal)
}

// p99Goal is the goal of these tests: p99 within 100µs.
var p99Goal = &SLO{Percentile: 99, Goal: 100e3}

// sloConfig is wholeConfig under p99Goal, repeats searches a candidate.
func sloConfig(repeats int, mem ...Memory) Config {
	cfg := wholeConfig(mem...)
	cfg.SLO, cfg.Repeats, cfg.Measure = p99Goal, repeats, 1
	return cfg
}

// 1KiB serves fastest, so its capacity under the goal is the highest,
// and it is chosen whether one search decides by the margin or five by
// the sign test.
func TestWholeSLOChoosesHighestCapacity(t *testing.T) {
	f := &queued{Service: map[int]float64{256: 30e3, 1024: 10e3, 4096: 15e3, 16384: 20e3}}
	for _, repeats := range []int{1, 5} {
		res := mustRun(t, sloConfig(repeats), f)
		w := res.Loads[0].Workload
		if res.Objective != ObjCapacity || w.Chosen != 1024 || w.Best != 1024 || res.Recommended != 1024 || w.Unmet {
			t.Fatalf("repeats %d: chose %d (best %d, recommended %d, unmet %v), want 1KiB", repeats, w.Chosen, w.Best, res.Recommended, w.Unmet)
		}
		for _, c := range w.Candidates {
			want := f.capacity(c.Threshold, p99Goal.Goal)
			if math.Abs(c.Capacity-want)/want > SearchTolerance || c.Value != c.Capacity {
				t.Errorf("repeats %d, %d: capacity %.0f (value %.0f), model %.0f", repeats, c.Threshold, c.Capacity, c.Value, want)
			}
			if len(c.Samples) != repeats || len(c.Samples[0].Search) < 3 || c.Samples[0].Search[0].Rate != 0 {
				t.Errorf("repeats %d, %d: %d searches, the first of %d steps", repeats, c.Threshold, len(c.Samples), len(c.Samples[0].Search))
			}
			if want := map[bool]Versus{true: VsChosen, false: VsWorse}[c.Threshold == 1024]; c.Versus != want {
				t.Errorf("repeats %d, %d: %s, want %s", repeats, c.Threshold, c.Versus, want)
			}
		}
	}
}

// Capacities within SLOMargin of the best tie with it, and the one
// needing the least memory is chosen.
func TestWholeSLOTiesPreferLeastMemory(t *testing.T) {
	f := &queued{Service: map[int]float64{256: 30e3, 1024: 10e3, 4096: 10.5e3, 16384: 20e3}}
	mem := memories(map[int]int64{256: 8 << 20, 1024: 4 << 20, 4096: 2 << 20, 16384: 1 << 20})
	w := mustRun(t, sloConfig(1, mem...), f).Loads[0].Workload
	if w.Best != 1024 || w.Chosen != 4096 {
		t.Fatalf("best %d chosen %d, want best 1KiB, chosen 4KiB (within the margin, less memory)", w.Best, w.Chosen)
	}
	for th, want := range map[int]Versus{256: VsWorse, 1024: VsTie, 4096: VsChosen, 16384: VsWorse} {
		if c := w.Candidate(th); c.Versus != want {
			t.Errorf("%d: %s (capacity %.0f), want %s", th, c.Versus, c.Capacity, want)
		}
	}
}

// A candidate that meets the goal at no rate is never chosen, however
// little memory it needs; when none meets it, nothing is chosen and the
// run says so rather than failing.
func TestWholeSLOUnmet(t *testing.T) {
	f := &queued{Service: map[int]float64{256: 200e3, 1024: 20e3, 4096: 200e3, 16384: 200e3}}
	mem := memories(map[int]int64{256: 1 << 20, 1024: 4 << 20, 4096: 8 << 20, 16384: 16 << 20})
	w := mustRun(t, sloConfig(1, mem...), f).Loads[0].Workload
	if w.Chosen != 1024 || w.Unmet {
		t.Errorf("chose %d (unmet %v), want 1KiB, the only one meeting the goal", w.Chosen, w.Unmet)
	}
	if c := w.Candidate(256); c.Capacity != 0 || c.Versus != VsWorse || !strings.Contains(c.Samples[0].SearchNote, "the goal fails down to") {
		t.Errorf("256B: capacity %g, %s, note %q", c.Capacity, c.Versus, c.Samples[0].SearchNote)
	}
	f.Service[1024] = 200e3
	res := mustRun(t, sloConfig(1, mem...), f)
	if w := res.Loads[0].Workload; !w.Unmet || w.Chosen != 0 || w.Best != 0 || res.Recommended != 0 {
		t.Errorf("none meets the goal: unmet %v, chose %d, best %d, recommended %d", w.Unmet, w.Chosen, w.Best, res.Recommended)
	}
}

// --max-memory rules candidates out before any search, and a refused one
// is searched no further.
func TestWholeSLORuledOutAndRefused(t *testing.T) {
	f := &queued{Service: map[int]float64{256: 30e3, 1024: 20e3, 4096: 15e3, 16384: 10e3}, Refuse: map[int]bool{4096: true}}
	cfg := sloConfig(2, memories(map[int]int64{256: 1 << 20, 1024: 2 << 20, 4096: 4 << 20, 16384: 16 << 20})...)
	cfg.Workload.MaxMemory = 6 << 20
	w := mustRun(t, cfg, f).Loads[0].Workload
	if w.Candidate(16384).Status != RuledOut || w.Candidate(4096).Status != Refused || w.Chosen != 1024 {
		t.Errorf("16KiB %s, 4KiB %s, chose %d; want ruled out, refused, 1KiB", w.Candidate(16384).Status, w.Candidate(4096).Status, w.Chosen)
	}
	calls := strings.Join(f.calls, " ")
	if strings.Contains(calls, "16384") || strings.Count(calls, "4096") != 1 {
		t.Errorf("searched a candidate ruled out or refused: %s", calls)
	}
}

// The candidates' searches run side by side, a step each in turn, in an
// order rotated by one a round: the closed loops that start them, then
// each pass of open-loop steps, in the round's order. The candidates
// serve alike, so every search takes as many steps.
func TestWholeSLORotatesOrder(t *testing.T) {
	f := &queued{Service: map[int]float64{256: 10e3, 1024: 10e3, 4096: 10e3, 16384: 10e3}}
	w := mustRun(t, sloConfig(2), f).Loads[0].Workload
	steps := len(w.Candidates[0].Samples[0].Search) // the closed loop's among them
	if len(f.calls) != 2*4*steps {
		t.Fatalf("%d measurements, want 2 rounds of 4 searches of %d steps: %v", len(f.calls), steps, f.calls)
	}
	for i := 0; i < len(f.calls); i += 4 {
		var group []string
		open := 0
		for _, c := range f.calls[i : i+4] {
			th, _, isOpen := strings.Cut(c, "@")
			group = append(group, th)
			if isOpen {
				open++
			}
		}
		want, closed := "256 1024 4096 16384", i/4%steps == 0
		if i/4 >= steps {
			want = "1024 4096 16384 256"
		}
		if got := strings.Join(group, " "); got != want || (open == 0) != closed {
			t.Errorf("measurements %d to %d: %v, want %s, closed loops %v", i, i+3, f.calls[i:i+4], want, closed)
		}
	}
}

// sloDistRun is a tune on a distribution under p99Goal: 256B meets the
// goal at no rate, 1KiB has the highest capacity, 4KiB one within the
// margin of it for less memory, and 16KiB needs more memory than
// allowed. The adaptive policy, compared, has a capacity beyond the
// margin above the chosen 4KiB's.
func sloDistRun(t *testing.T) *Result {
	t.Helper()
	f := &queued{Service: map[int]float64{256: 200e3, 1024: 10e3, 4096: 10.5e3, 16384: 8e3, AdaptiveThreshold: 8.5e3}}
	cfg := sloConfig(1, memories(map[int]int64{256: 1 << 20, 1024: 4 << 20, 4096: 2 << 20, 16384: 16 << 20, AdaptiveThreshold: 16 << 20})...)
	cfg.Workload.MaxMemory, cfg.Workload.Adaptive = 8<<20, true
	return mustRun(t, cfg, f)
}

// --predict under a latency goal searches each single size's capacity
// under both protocols, and their crossover is the prediction beside the
// whole workload's choice.
func TestWholeSLOPredicted(t *testing.T) {
	sizes := newLoadModel(5)
	sizes.Sigma = 0
	f := &queued{Service: map[int]float64{256: 30e3, 1024: 10e3, 4096: 15e3, 16384: 20e3}}
	m := MeasurerFunc(func(ctx context.Context, r Request) (Sample, error) {
		if r.Whole {
			return f.Measure(ctx, r)
		}
		return sizes.Measure(ctx, r)
	})
	cfg := sloConfig(1)
	cfg.Sizes = pow2(512, 32768)
	res := mustRun(t, cfg, m)
	l := res.Loads[0]
	if w := l.Workload; w.Predicted != 8192 || w.Chosen != 1024 || l.Recommended != 1024 {
		t.Errorf("predicted %d, chose %d, recommended %d; want 8KiB predicted, 1KiB chosen", w.Predicted, w.Chosen, l.Recommended)
	}
	for _, p := range l.Ops[0].Points {
		want := sizes.capacity(Request{Size: p.Size, Protocol: Rendezvous, Load: l.Load}, p99Goal.Goal)
		if !p.ByMargin || math.Abs(p.RdvValue-want)/want > SearchTolerance {
			t.Errorf("%d: rendezvous capacity %.0f, model %.0f (by margin %v)", p.Size, p.RdvValue, want, p.ByMargin)
		}
	}
}
