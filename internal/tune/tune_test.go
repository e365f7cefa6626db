package tune

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// linear is a fake system: latency = base + perByte*size per protocol, with
// multiplicative Gaussian noise of relative size Sigma from a seeded source.
type linear struct {
	EagerBase, EagerPerByte, RdvBase, RdvPerByte, Sigma float64
	// AdaptiveCost is how much slower than the faster protocol the
	// adaptive policy measures, as a share of it.
	AdaptiveCost float64
	MaxEager     int // eager unsupported above this size; 0 = no limit
	Phases       bool
	rnd          *rand.Rand
	calls        []string
}

// crossover is where the two noiseless lines meet.
func (l *linear) crossover() float64 {
	return (l.RdvBase - l.EagerBase) / (l.EagerPerByte - l.RdvPerByte)
}

func (l *linear) Measure(_ context.Context, r Request) (Sample, error) {
	op, size, p := r.Op, r.Size, r.Protocol
	l.calls = append(l.calls, fmt.Sprintf("%s/%d/%s", op, size, r.Policy()))
	if p == Eager && l.MaxEager > 0 && size > l.MaxEager {
		return Sample{}, fmt.Errorf("size %d above max eager: %w", size, ErrUnsupported)
	}
	eager, lat := l.EagerBase+l.EagerPerByte*float64(size), l.RdvBase+l.RdvPerByte*float64(size)
	switch {
	case p == Eager:
		lat = eager
	case r.Threshold == AdaptiveThreshold:
		lat = min(eager, lat) * (1 + l.AdaptiveCost)
	}
	lat *= 1 + l.Sigma*l.rnd.NormFloat64()
	s := Sample{P50: lat, OpsPerSec: 1e9 / lat, BytesPerSec: 1e9 / lat * float64(size), Count: 1000}
	if l.Phases {
		s.Phases = linearPhases(lat, p)
	}
	return s, nil
}

// linearPhases splits a fake latency: eager's size cost is in network
// (the payload travels inline), rendezvous's in read; the fixed parts
// are the same at every size.
func linearPhases(lat float64, p Protocol) map[string]float64 {
	if p == Eager {
		return map[string]float64{"client": 100, "server": 200, "network": lat - 300}
	}
	return map[string]float64{"client": 100, "server": 500, "network": 1500, "release": 300, "read": lat - 2400}
}

func newLinear(seed uint64) *linear {
	return &linear{EagerBase: 1000, EagerPerByte: 1, RdvBase: 5000, RdvPerByte: 0.05, Sigma: 0.01,
		rnd: rand.New(rand.NewPCG(seed, 2))}
}

// byOp measures gets with get and sets with set.
func byOp(get, set Measurer) Measurer {
	return MeasurerFunc(func(ctx context.Context, r Request) (Sample, error) {
		if r.Op == rdmakv.OpGet {
			return get.Measure(ctx, r)
		}
		return set.Measure(ctx, r)
	})
}

func pow2(lo, hi int) []int {
	var s []int
	for v := lo; v <= hi; v *= 2 {
		s = append(s, v)
	}
	return s
}

func TestFindsKnownCrossover(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		m := newLinear(seed)
		res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet, rdmakv.OpSet}, Sizes: pow2(64, 1<<20), Repeats: 5, KeySize: 16}, m)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range res.Loads[0].Ops {
			if !o.Found || o.Crossover != 8192 || o.Below != 4096 {
				t.Fatalf("seed %d %s: found=%v crossover=%d below=%d (outcome %d)", seed, o.Op, o.Found, o.Crossover, o.Below, o.Outcome)
			}
			if want := m.crossover(); math.Abs(o.EqualAt-want)/want > 0.05 {
				t.Errorf("seed %d %s: equal at %.0f, want within 5%% of %.0f", seed, o.Op, o.EqualAt, want)
			}
			if o.Threshold != 8192 {
				t.Errorf("%s: threshold %d, want 8192", o.Op, o.Threshold)
			}
		}
		if res.Recommended != 8192 {
			t.Errorf("recommended %d, want 8192", res.Recommended)
		}
	}
}

func TestInterleavedAlternatingOrder(t *testing.T) {
	m := newLinear(1)
	_, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{1024, 64}, Repeats: 3}, m)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"get/64/eager", "get/64/rendezvous", "get/1024/eager", "get/1024/rendezvous",
		"get/64/rendezvous", "get/64/eager", "get/1024/rendezvous", "get/1024/eager",
		"get/64/eager", "get/64/rendezvous", "get/1024/eager", "get/1024/rendezvous",
	}
	if strings.Join(m.calls, " ") != strings.Join(want, " ") {
		t.Errorf("calls\n%v\nwant\n%v", m.calls, want)
	}
}

func TestCrossoverAboveRange(t *testing.T) {
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 1024), Repeats: 5}, newLinear(3))
	if err != nil {
		t.Fatal(err)
	}
	o := res.Loads[0].Ops[0]
	if o.Found || res.Recommended != 0 {
		t.Fatalf("found a crossover in %v", o)
	}
	if o.Outcome != OutcomeEagerAhead || o.To != 1024 || o.LastEager != 1024 || o.Limit != 0 {
		t.Errorf("outcome %d, eager last ahead at %d of %d..%d, limit %d", o.Outcome, o.LastEager, o.From, o.To, o.Limit)
	}
}

func TestCrossoverBelowRange(t *testing.T) {
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpSet}, Sizes: pow2(65536, 1<<20), Repeats: 5}, newLinear(4))
	if err != nil {
		t.Fatal(err)
	}
	o := res.Loads[0].Ops[0]
	if o.Found || o.Outcome != OutcomeBelowRange || o.From != 65536 {
		t.Errorf("found=%v outcome %d from %d", o.Found, o.Outcome, o.From)
	}
}

func TestAlikeProtocolsFindNoCrossover(t *testing.T) {
	// Both protocols identical: a test at level 0.05 calls a chance winner
	// at about 6% of sizes (either direction), but the confirmation rule
	// must keep those from becoming a crossover.
	var points, decided int
	for seed := uint64(1); seed <= 20; seed++ {
		m := newLinear(seed)
		m.RdvBase, m.RdvPerByte, m.Sigma = m.EagerBase, m.EagerPerByte, 0.05
		res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 65536), Repeats: 5}, m)
		if err != nil {
			t.Fatal(err)
		}
		o := res.Loads[0].Ops[0]
		if o.Found || res.Recommended != 0 {
			t.Errorf("seed %d: crossover %d found between identical protocols", seed, o.Crossover)
		}
		for _, p := range o.Points {
			points++
			if p.Winner != "tie" {
				decided++
			}
		}
	}
	if decided > points/7 {
		t.Errorf("%d of %d sizes called a winner between identical protocols", decided, points)
	}
}

func TestDisturbedRepetitionStillFindsCrossover(t *testing.T) {
	// A loaded machine: every (op, size, protocol) has one repetition
	// slowed threefold. A max-min spread rule would call every size a tie;
	// pairs lose one vote each and 8 repeats still decide.
	for seed := uint64(1); seed <= 5; seed++ {
		m := newLinear(seed)
		n := map[string]int{}
		slow := MeasurerFunc(func(ctx context.Context, r Request) (Sample, error) {
			s, err := m.Measure(ctx, r)
			k := fmt.Sprintf("%s/%d/%s", r.Op, r.Size, r.Protocol)
			p := r.Protocol
			n[k]++
			// Eager's hiccup and rendezvous's fall in different pairs.
			if (p == Eager && n[k] == 3) || (p == Rendezvous && n[k] == 6) {
				s.P50 *= 3
			}
			return s, err
		})
		res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 1<<20), Repeats: 8}, slow)
		if err != nil {
			t.Fatal(err)
		}
		o := res.Loads[0].Ops[0]
		if !o.Found || o.Crossover != 8192 {
			t.Errorf("seed %d: found=%v crossover=%d (outcome %d)", seed, o.Found, o.Crossover, o.Outcome)
		}
	}
}

func TestTooFewRepeatsDecideNothing(t *testing.T) {
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 1<<20), Repeats: 3}, newLinear(2))
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Loads[0].Ops[0]; o.Found || slices.ContainsFunc(o.Points, func(p Point) bool { return p.Winner != WinTie }) {
		t.Errorf("found=%v with 3 repeats, whose sign test cannot decide a size", o.Found)
	}
}

func TestSmallestCrossoverWins(t *testing.T) {
	set := newLinear(7)
	get := newLinear(8)
	get.RdvBase = 20000 // get crosses near 20KiB: 32KiB measured
	mux := MeasurerFunc(func(ctx context.Context, r Request) (Sample, error) {
		if r.Op == rdmakv.OpGet {
			return get.Measure(ctx, r)
		}
		return set.Measure(ctx, r)
	})
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet, rdmakv.OpSet}, Sizes: pow2(64, 1<<20), Repeats: 5}, mux)
	if err != nil {
		t.Fatal(err)
	}
	if res.Loads[0].Ops[0].Threshold != 32768 || res.Loads[0].Ops[1].Threshold != 8192 || res.Recommended != 8192 {
		t.Errorf("thresholds get=%d set=%d overall=%d", res.Loads[0].Ops[0].Threshold, res.Loads[0].Ops[1].Threshold, res.Recommended)
	}
	l := &res.Loads[0]
	if by := l.DecidedBy(); by == nil || by.Op != rdmakv.OpSet {
		t.Errorf("threshold decided by %v, want set", by)
	}
	// The shared threshold sends get rendezvous from 8KiB, where eager is
	// still ahead of it.
	if get := l.Ops[0]; get.SharedLoss <= 0 || l.Ops[1].SharedLoss != 0 {
		t.Errorf("shared loss get %g, set %g", get.SharedLoss, l.Ops[1].SharedLoss)
	}
}

func TestThresholdFor(t *testing.T) {
	// The key counts: 16-byte keys take 8176-byte values eager under
	// 8192 no more, where 16368-byte values still go rendezvous under 16384.
	cases := []struct{ key, below, above, want int }{
		{16, 4096, 8192, 8192}, {0, 4096, 8192, 8192}, {0, 5000, 6000, 4096}, {0, 5000, 7000, 8192}, {0, 1, 2, 2},
		{16, 8176, 16368, 16384}, {0, 8176, 16368, 8192},
	}
	for _, c := range cases {
		if got := thresholdFor(c.key, c.below, c.above); got != c.want {
			t.Errorf("thresholdFor(%d, %d, %d) = %d, want %d", c.key, c.below, c.above, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	_, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpDelete}, Sizes: []int{0}, Repeats: 1}, newLinear(1))
	for _, want := range []string{"op delete: want get or set", "1 value size(s)", "value size 0", "repeats 1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not mention %q", err, want)
		}
	}
}

func TestMeasureErrorStops(t *testing.T) {
	boom := errors.New("link down")
	m := MeasurerFunc(func(context.Context, Request) (Sample, error) { return Sample{}, boom })
	_, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 128}, Repeats: 2}, m)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "get 64B eager") {
		t.Errorf("err = %v", err)
	}
}

func TestLoneWinAtLargestSizeIsNotACrossover(t *testing.T) {
	s := []Sample{{P50: 1}}
	pt := func(size int, winner Winner) Point {
		return Point{Size: size, Eager: s, Rendezvous: s, Winner: winner}
	}
	o := Analyze(rdmakv.OpGet, []Point{pt(1024, "eager"), pt(2048, "tie"), pt(4096, "rendezvous")}, 0)
	if o.Found || o.Outcome != OutcomeLastOnly || o.To != 4096 {
		t.Errorf("found=%v outcome %d to %d", o.Found, o.Outcome, o.To)
	}
	o = Analyze(rdmakv.OpGet, []Point{pt(1024, "eager"), pt(2048, "rendezvous"), pt(4096, "rendezvous")}, 0)
	if !o.Found || o.Crossover != 2048 {
		t.Errorf("confirmed win: found=%v crossover=%d", o.Found, o.Crossover)
	}
	// A lone win followed by a tie is not the crossover; the confirmed
	// pair above it is.
	o = Analyze(rdmakv.OpGet, []Point{pt(1024, "rendezvous"), pt(2048, "tie"), pt(4096, "rendezvous"), pt(8192, "rendezvous")}, 0)
	if !o.Found || o.Crossover != 4096 {
		t.Errorf("found=%v crossover=%d", o.Found, o.Crossover)
	}
}

func TestDeciderNamesThePhase(t *testing.T) {
	m := newLinear(3)
	m.Phases = true
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(1024, 65536), Repeats: 5, KeySize: 16}, m)
	if err != nil {
		t.Fatal(err)
	}
	o := res.Loads[0].Ops[0]
	if !o.Found || o.Below != 4096 || o.Crossover != 8192 || o.DecidingPhase != "network" {
		t.Fatalf("found %v from %d to %d, deciding phase %q", o.Found, o.Below, o.Crossover, o.DecidingPhase)
	}
	pt := o.Points[0]
	if len(pt.EagerPhases) != 3 || len(pt.RdvPhases) != 5 || pt.RdvPhases["server"] != 500 {
		t.Errorf("phase medians %v %v", pt.EagerPhases, pt.RdvPhases)
	}
	m.Phases = false
	if res, _ := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(1024, 65536), Repeats: 5}, m); res.Loads[0].Ops[0].DecidingPhase != "" {
		t.Errorf("a run without phases names a deciding phase: %q", res.Loads[0].Ops[0].DecidingPhase)
	}
}
