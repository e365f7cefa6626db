package tune

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
	"gotest.tools/v3/golden"
)

// linear is a fake system: latency = base + perByte*size per protocol, with
// multiplicative Gaussian noise of relative size sigma from a seeded source.
type linear struct {
	eagerBase, eagerPerByte, rdvBase, rdvPerByte, sigma float64
	maxEager                                            int // eager unsupported above this size; 0 = no limit
	phases                                              bool
	rnd                                                 *rand.Rand
	calls                                               []string
}

// crossover is where the two noiseless lines meet.
func (l *linear) crossover() float64 {
	return (l.rdvBase - l.eagerBase) / (l.eagerPerByte - l.rdvPerByte)
}

func (l *linear) Measure(_ context.Context, r Request) (Sample, error) {
	op, size, p := r.Op, r.Size, r.Protocol
	l.calls = append(l.calls, fmt.Sprintf("%s/%d/%s", op, size, p))
	if p == Eager && l.maxEager > 0 && size > l.maxEager {
		return Sample{}, fmt.Errorf("size %d above max eager: %w", size, ErrUnsupported)
	}
	lat := l.rdvBase + l.rdvPerByte*float64(size)
	if p == Eager {
		lat = l.eagerBase + l.eagerPerByte*float64(size)
	}
	lat *= 1 + l.sigma*l.rnd.NormFloat64()
	s := Sample{P50: lat, OpsPerSec: 1e9 / lat, BytesPerSec: 1e9 / lat * float64(size), Count: 1000}
	if l.phases {
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
	return &linear{eagerBase: 1000, eagerPerByte: 1, rdvBase: 5000, rdvPerByte: 0.05, sigma: 0.01,
		rnd: rand.New(rand.NewPCG(seed, 2))}
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
				t.Fatalf("seed %d %s: found=%v crossover=%d below=%d (%s)", seed, o.Op, o.Found, o.Crossover, o.Below, o.Verdict)
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
	if !strings.Contains(o.Suggestion, "extend values.range.max beyond 1KiB") {
		t.Errorf("suggestion %q", o.Suggestion)
	}
	var buf bytes.Buffer
	if err := res.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "no crossover was found") || !strings.Contains(buf.String(), "extend values.range.max") {
		t.Errorf("table does not say so:\n%s", buf.String())
	}
}

func TestCrossoverBelowRange(t *testing.T) {
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpSet}, Sizes: pow2(65536, 1<<20), Repeats: 5}, newLinear(4))
	if err != nil {
		t.Fatal(err)
	}
	o := res.Loads[0].Ops[0]
	if o.Found || !strings.Contains(o.Suggestion, "extend values.range.min below 64KiB") {
		t.Errorf("found=%v suggestion %q", o.Found, o.Suggestion)
	}
}

func TestAlikeProtocolsFindNoCrossover(t *testing.T) {
	// Both protocols identical: a test at level 0.05 calls a chance winner
	// at about 6% of sizes (either direction), but the confirmation rule
	// must keep those from becoming a crossover.
	var points, decided int
	for seed := uint64(1); seed <= 20; seed++ {
		m := newLinear(seed)
		m.rdvBase, m.rdvPerByte, m.sigma = m.eagerBase, m.eagerPerByte, 0.05
		res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 65536), Repeats: 5}, m)
		if err != nil {
			t.Fatal(err)
		}
		o := res.Loads[0].Ops[0]
		if o.Found || res.Recommended != 0 {
			t.Errorf("seed %d: crossover %d found between identical protocols (%s)", seed, o.Crossover, o.Verdict)
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
			t.Errorf("seed %d: found=%v crossover=%d (%s)", seed, o.Found, o.Crossover, o.Verdict)
		}
	}
}

func TestTooFewRepeatsSaysSo(t *testing.T) {
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 1<<20), Repeats: 3}, newLinear(2))
	if err != nil {
		t.Fatal(err)
	}
	if res.Loads[0].Ops[0].Found || !strings.Contains(strings.Join(res.Explanation, "\n"), "use --repeats 5 or more") {
		t.Errorf("found=%v explanation %q", res.Loads[0].Ops[0].Found, res.Explanation)
	}
}

func TestSmallestCrossoverWins(t *testing.T) {
	set := newLinear(7)
	get := newLinear(8)
	get.rdvBase = 20000 // get crosses near 20KiB: 32KiB measured
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
	all := strings.Join(res.Explanation, "\n")
	if !strings.Contains(all, "smallest per-op crossover (set") || !strings.Contains(all, "get alone would use 32KiB") {
		t.Errorf("explanation:\n%s", all)
	}
}

func TestThresholdFor(t *testing.T) {
	cases := []struct{ below, above, want int }{
		{4112, 8208, 8192}, {4096, 8192, 8192}, {5000, 6000, 4096}, {5000, 7000, 8192}, {1, 2, 2},
	}
	for _, c := range cases {
		if got := thresholdFor(c.below, c.above); got != c.want {
			t.Errorf("thresholdFor(%d, %d) = %d, want %d", c.below, c.above, got, c.want)
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

func TestSaveGolden(t *testing.T) {
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(1024, 65536), Repeats: 5, KeySize: 16}, newLinear(9))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := res.Save(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 4 { // json, txt, png, svg
		t.Errorf("wrote %v", paths)
	}
	txt, err := os.ReadFile(filepath.Join(dir, TextFile))
	if err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, string(txt), "tune.txt.golden")
	var back Result
	js, _ := os.ReadFile(filepath.Join(dir, JSONFile))
	if err := json.Unmarshal(js, &back); err != nil || back.Recommended != res.Recommended || len(back.Loads[0].Ops[0].Points) != 7 {
		t.Errorf("tune.json round trip: %v, %+v", err, back.Recommended)
	}
	figs := res.Figures()
	if len(figs) != 1 || len(figs[0].Panels[0].Series) != 2 || figs[0].Panels[0].Markers[0] != 8192 {
		t.Errorf("figure model: %+v", figs[0].Panels[0])
	}
}

func TestLoneWinAtLargestSizeIsNotACrossover(t *testing.T) {
	s := []Sample{{P50: 1}}
	pt := func(size int, winner string) Point {
		return Point{Size: size, Eager: s, Rendezvous: s, Winner: winner}
	}
	o := Analyze(rdmakv.OpGet, []Point{pt(1024, "eager"), pt(2048, "tie"), pt(4096, "rendezvous")}, 0)
	if o.Found || !strings.Contains(o.Suggestion, "extend values.range.max beyond 4KiB") {
		t.Errorf("found=%v verdict %q suggestion %q", o.Found, o.Verdict, o.Suggestion)
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

func TestProtocolRanges(t *testing.T) {
	r := &Result{Config: Config{KeySize: 16}}
	got := fmt.Sprint(r.protocolRanges(rdmakv.OpGet, 8192)[1:])
	if want := "[[0..8175 eager] [8176..inf rendezvous]]"; got != want {
		t.Errorf("ranges %s, want %s", got, want)
	}
	// Every request carries the key: nothing fits eager.
	if got := fmt.Sprint(r.protocolRanges(rdmakv.OpGet, 16)[1:]); got != "[[0..inf rendezvous]]" {
		t.Errorf("ranges %s", got)
	}
}

func TestDeciderNamesThePhase(t *testing.T) {
	m := newLinear(3)
	m.phases = true
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(1024, 65536), Repeats: 5, KeySize: 16}, m)
	if err != nil {
		t.Fatal(err)
	}
	o := res.Loads[0].Ops[0]
	if !o.Found || !strings.Contains(o.Decider, "the network phase decides the crossover: from 4KiB to 8KiB") {
		t.Fatalf("found %v at %d, decider %q", o.Found, o.Crossover, o.Decider)
	}
	pt := o.Points[0]
	if len(pt.EagerPhases) != 3 || len(pt.RdvPhases) != 5 || pt.RdvPhases["server"] != 500 {
		t.Errorf("phase medians %v %v", pt.EagerPhases, pt.RdvPhases)
	}
	if !slices.Contains(res.Explanation, o.Decider) {
		t.Errorf("explanation lacks the decider: %q", res.Explanation)
	}
	figs := res.Figures()
	if len(figs) != 2 || figs[1].Name != "tune-phases-get" || len(figs[1].Panels[0].Bars) != 2*len(o.Points) {
		t.Errorf("figures: %d, want the curves and tune-phases-get with a pair of bars per size", len(figs))
	}
	m.phases = false
	if res, _ := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(1024, 65536), Repeats: 5}, m); res.Loads[0].Ops[0].Decider != "" {
		t.Errorf("a run without phases names a decider: %q", res.Loads[0].Ops[0].Decider)
	}
}
