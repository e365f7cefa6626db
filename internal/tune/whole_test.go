package tune

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// thresholds is a fake system measured whole: each candidate threshold
// has its p50 in ns for each round, the last repeated for the rounds
// beyond. A threshold in Refuse is refused.
type thresholds struct {
	P50    map[int][]float64
	Refuse map[int]bool
	calls  []string
	round  map[int]int
}

func (f *thresholds) Measure(_ context.Context, r Request) (Sample, error) {
	if !r.Whole {
		return Sample{}, fmt.Errorf("a per-size request (%s) on a distribution", describe(r))
	}
	f.calls = append(f.calls, fmt.Sprint(r.Threshold))
	if f.Refuse[r.Threshold] {
		return Sample{}, fmt.Errorf("above max eager: %w", ErrUnsupported)
	}
	if f.round == nil {
		f.round = map[int]int{}
	}
	rounds := f.P50[r.Threshold]
	lat := rounds[min(f.round[r.Threshold], len(rounds)-1)]
	f.round[r.Threshold]++
	return Sample{P50: lat, P99: 2 * lat, OpsPerSec: 1e9 / lat, Count: 1000}, nil
}

// mustRun is Run that fails the test on an error.
func mustRun(t *testing.T, cfg Config, m Measurer) *Result {
	t.Helper()
	res, err := Run(context.Background(), cfg, m)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// steady is a p50 of v in every round.
func steady(v float64) []float64 { return []float64{v} }

// wholeConfig tunes a distribution over candidates 256B to 16KiB.
func wholeConfig(mem ...Memory) Config {
	return Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Repeats: 5, KeySize: 16,
		Workload: &Workload{Distribution: "etc, max: 64KiB", MaxSize: 65536, Thresholds: []int{256, 1024, 4096, 16384}, Memory: mem}}
}

// memories gives each threshold its memory at one connection, depth 1.
func memories(bytes map[int]int64) []Memory {
	var out []Memory
	for t, b := range bytes {
		out = append(out, Memory{Load: Load{Connections: 1, Depth: 1}, Threshold: t, Server: b, Client: b / 4})
	}
	return out
}

func TestWholeChoosesClearWinner(t *testing.T) {
	f := &thresholds{P50: map[int][]float64{256: steady(3000), 1024: steady(2500), 4096: {1500, 1550, 1520, 1500, 1510}, 16384: steady(2800)}}
	res := mustRun(t, wholeConfig(), f)
	w := res.Loads[0].Workload
	if w.Chosen != 4096 || w.Best != 4096 || res.Recommended != 4096 {
		t.Fatalf("chose %d (best %d, recommended %d), want 4KiB", w.Chosen, w.Best, res.Recommended)
	}
	for _, c := range w.Candidates {
		want := VsWorse
		if c.Threshold == 4096 {
			want = VsChosen
		}
		if c.Versus != want || len(c.Samples) != 5 {
			t.Errorf("%d: %s with %d samples, want %s with 5", c.Threshold, c.Versus, len(c.Samples), want)
		}
	}
	if c := w.Candidate(4096); c.P50 != 1510 || c.P99 != 2*c.P50 {
		t.Errorf("4KiB medians p50 %g p99 %g", c.P50, c.P99)
	}
}

// Each round runs every candidate, the order rotated by one a round.
func TestWholeRotatesOrder(t *testing.T) {
	f := &thresholds{P50: map[int][]float64{256: steady(1000), 1024: steady(1000), 4096: steady(1000), 16384: steady(1000)}}
	cfg := wholeConfig()
	cfg.Repeats = 2
	if _, err := Run(context.Background(), cfg, f); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(f.calls, " "), "256 1024 4096 16384 1024 4096 16384 256"; got != want {
		t.Errorf("order %s, want %s", got, want)
	}
}

// Candidates within noise of the best tie with it, and the one needing
// the least memory is chosen, whatever its threshold.
// tiedRun is a tune on a distribution where 16KiB has the best median,
// but each of 1KiB to 16KiB wins only 2 or 3 of the 5 rounds against each
// other, and 1KiB needs the least memory, less than 256B. The adaptive
// policy, compared, ties with the chosen 1KiB and the default 4KiB.
func tiedRun(t *testing.T) *Result {
	t.Helper()
	f := &thresholds{P50: map[int][]float64{256: steady(2000), 1024: {1000, 1040, 1000, 1040, 1000},
		4096: {1040, 1000, 1040, 1000, 1040}, 16384: {990, 1050, 990, 1050, 990}, AdaptiveThreshold: steady(1020)}}
	mem := memories(map[int]int64{256: 8 << 20, 1024: 1 << 20, 4096: 2 << 20, 16384: 4 << 20})
	cfg := wholeConfig(mem...)
	cfg.Workload.Adaptive = true
	return mustRun(t, cfg, f)
}

func TestWholeTiesPreferLeastMemory(t *testing.T) {
	res := tiedRun(t)
	w := res.Loads[0].Workload
	if w.Best != 16384 || w.Chosen != 1024 {
		t.Fatalf("best %d chosen %d, want best 16KiB, chosen 1KiB (least memory)", w.Best, w.Chosen)
	}
	for th, want := range map[int]Versus{256: VsWorse, 1024: VsChosen, 4096: VsTie, 16384: VsTie} {
		if c := w.Candidate(th); c.Versus != want {
			t.Errorf("%d: %s (%d wins, %d losses, p %.3f), want %s", th, c.Versus, c.Wins, c.Losses, c.P, want)
		}
	}
	if c := w.Candidate(1024); !c.MemoryKnown || c.Memory() != 1<<20+1<<18 {
		t.Errorf("1KiB memory %d (known %v)", c.Memory(), c.MemoryKnown)
	}
}

func TestWholeMaxMemoryRulesOut(t *testing.T) {
	f := &thresholds{P50: map[int][]float64{256: steady(3000), 1024: steady(2500), 4096: steady(2000), 16384: steady(1000)}}
	cfg := wholeConfig(memories(map[int]int64{256: 1 << 20, 1024: 2 << 20, 4096: 4 << 20, 16384: 16 << 20})...)
	cfg.Workload.MaxMemory = 6 << 20
	// The embedded server's max eager need not reach a candidate ruled out.
	if got := cfg.MaxEagerThreshold(); got != 4096 {
		t.Errorf("max eager threshold %d, want 4096", got)
	}
	res := mustRun(t, cfg, f)
	w := res.Loads[0].Workload
	if c := w.Candidate(16384); c.Status != RuledOut || len(c.Samples) != 0 || w.Chosen != 4096 {
		t.Errorf("16KiB %s with %d samples, chose %d; want ruled out, 4KiB", c.Status, len(c.Samples), w.Chosen)
	}
	if strings.Contains(strings.Join(f.calls, " "), "16384") {
		t.Errorf("measured a ruled-out candidate: %v", f.calls)
	}
	cfg.Workload.MaxMemory = 1 << 10
	if _, err := Run(context.Background(), cfg, f); err == nil || !strings.Contains(err.Error(), "rules out every candidate") {
		t.Errorf("every candidate ruled out: %v", err)
	}
}

func TestWholeRefusedCandidate(t *testing.T) {
	f := &thresholds{P50: map[int][]float64{256: steady(3000), 1024: steady(2500), 4096: steady(2000), 16384: steady(1000)}, Refuse: map[int]bool{16384: true}}
	res := mustRun(t, wholeConfig(), f)
	w := res.Loads[0].Workload
	if c := w.Candidate(16384); c.Status != Refused || w.Chosen != 4096 || !strings.Contains(w.Refusal, "above max eager") {
		t.Errorf("16KiB %s, chose %d, refusal %q", c.Status, w.Chosen, w.Refusal)
	}
	if n := strings.Count(strings.Join(f.calls, " "), "16384"); n != 1 {
		t.Errorf("asked for the refused candidate %d times", n)
	}
	// The progress still reaches its total.
	var last Progress
	cfg := wholeConfig()
	cfg.Progress = func(p Progress) { last = p }
	if _, err := Run(context.Background(), cfg, &thresholds{P50: f.P50, Refuse: f.Refuse}); err != nil || last.Done != last.Total || last.Total != 20 {
		t.Errorf("progress %d of %d, %v", last.Done, last.Total, err)
	}
}

func TestLadder(t *testing.T) {
	for _, c := range []struct {
		max  int
		want string
	}{
		{65536, "[256 1024 4096 16384 65536]"},
		{65535, "[256 1024 4096 16384]"},
		{100, "[256 1024]"},
		{1 << 30, "[256 1024 4096 16384 65536 262144 1048576 4194304 16777216]"},
	} {
		if got := fmt.Sprint(Ladder(c.max)); got != c.want {
			t.Errorf("Ladder(%d) = %s, want %s", c.max, got, c.want)
		}
	}
}

// distSystem measures single sizes as linear does and the whole
// workload as thresholds does.
type distSystem struct {
	*linear
	whole *thresholds
}

func (d distSystem) Measure(ctx context.Context, r Request) (Sample, error) {
	if r.Whole {
		return d.whole.Measure(ctx, r)
	}
	return d.linear.Measure(ctx, r)
}

// distRun is a tune on a distribution, predicted from single sizes
// (whose crossover puts the threshold at 8KiB), where the whole workload
// is fastest at 64KiB and 256KiB needs more memory than allowed. The
// adaptive policy, compared, needs as much as 64KiB and the sign test
// cannot tell it from 64KiB.
func distRun(t *testing.T) *Result {
	t.Helper()
	cfg := wholeConfig(memories(map[int]int64{1024: 300 << 10, 8192: 2 << 20, 65536: 16 << 20, 262144: 64 << 20, AdaptiveThreshold: 16 << 20})...)
	cfg.Workload.Thresholds, cfg.Workload.MaxMemory, cfg.Sizes = []int{1024, 8192, 65536, 262144}, 32<<20, pow2(1024, 65536)
	cfg.Workload.Adaptive = true
	f := &thresholds{P50: map[int][]float64{1024: steady(9000), 8192: {6000, 6100, 5900, 6050, 6000}, 65536: {4000, 4100, 3900, 4050, 4000},
		AdaptiveThreshold: {4200, 3900, 4300, 4100, 4000}}}
	return mustRun(t, cfg, distSystem{newLinear(9), f})
}

func TestWholePredicted(t *testing.T) {
	res := distRun(t)
	w := res.Loads[0].Workload
	if w.Predicted != 8192 || w.Chosen != 65536 || res.Recommended != 65536 || len(res.Loads[0].Ops) != 1 {
		t.Errorf("predicted %d, chosen %d, recommended %d, %d ops; want 8KiB predicted, 64KiB chosen",
			w.Predicted, w.Chosen, res.Recommended, len(res.Loads[0].Ops))
	}
}
