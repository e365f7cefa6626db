package rdmakv

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// adaptSim drives a policy with a fake clock and latencies from a cost
// model times seeded lognormal noise, serving gets as the server does
// (ProtocolAt on the request's threshold).
type adaptSim struct {
	t     *testing.T
	p     *adaptivePolicy
	now   int64
	rng   *rand.Rand
	noise float64 // sigma of the lognormal factor
	cost  func(n int, p Protocol) float64
	// reqs counts the requests made.
	reqs int
	// last is the one client's last request (adaptive_after.go).
	last atomic.Uint64
	// leave, if set, is work a request leaves behind, which the next
	// request waits for: owed until then.
	leave func(n int, p Protocol) float64
	owed  float64
	// step is the fake time between two requests (adaptStep).
	step time.Duration
}

// adaptStep is the fake time between two requests: 100k requests a second.
const adaptStep = 10 * time.Microsecond

func newAdaptSim(t *testing.T, cfg AdaptiveConfig, maxEager, start int, cost func(int, Protocol) float64) *adaptSim {
	s := &adaptSim{t: t, rng: rand.New(rand.NewPCG(1, 2)), cost: cost, noise: 0.05, step: adaptStep}
	s.p = newAdaptivePolicy(cfg.withDefaults(), maxEager, start, func() int64 { return s.now })
	return s
}

// serve takes a request of n bytes by proto through the policy's clock.
func (s *adaptSim) serve(op Op, n int, proto Protocol) {
	start := s.p.now()
	lat := s.cost(n, proto)*math.Exp(s.noise*s.rng.NormFloat64()) + s.owed
	s.owed = 0
	if s.leave != nil {
		s.owed = s.leave(n, proto)
	}
	s.now += int64(lat)
	s.p.observe(op, n, proto, start, &s.last)
	s.now += int64(s.step)
	s.reqs++
}

func (s *adaptSim) set(n int) Protocol {
	p := s.p.setProtocol(n, s.now)
	if p == Eager && n >= s.p.maxEager {
		s.t.Fatalf("a set of %d bytes went eager, max eager %d", n, s.p.maxEager)
	}
	s.serve(OpSet, n, p)
	return p
}

func (s *adaptSim) get(n int) Protocol {
	aux := s.p.getThreshold(s.now)
	if aux > s.p.maxEager {
		s.t.Fatalf("get threshold %d above max eager %d", aux, s.p.maxEager)
	}
	p := ProtocolAt(aux, 0, n)
	s.serve(OpGet, n, p)
	return p
}

// size draws a size from classes lo..hi, evenly by class.
func (s *adaptSim) size(lo, hi int) int {
	k := lo + s.rng.IntN(hi-lo+1)
	return classLower(k) + s.rng.IntN(classUpper(k)-classLower(k))
}

// run makes n sets and n gets of sizes in classes lo..hi, and stops
// early when done says so; it returns the requests made.
func (s *adaptSim) run(n, lo, hi int, done func() bool) int {
	for i := range n {
		s.set(s.size(lo, hi))
		s.get(s.size(lo, hi))
		if i%1000 == 0 && done != nil && done() {
			return 2 * i
		}
	}
	return 2 * n
}

// crossover is a cost model whose protocols cost the same at at bytes:
// eager grows by half a ns a byte, rendezvous by 1/32 from a higher
// fixed cost.
func crossover(at int) func(int, Protocol) float64 {
	return func(n int, p Protocol) float64 {
		if p == Eager {
			return 1000 + float64(n)/2
		}
		return 1000 + float64(at)*(0.5-1.0/32) + float64(n)/32
	}
}

// settledAt says whether every class lo..hi of both ops chooses eager
// exactly below at and the get threshold is at.
func (s *adaptSim) settledAt(at, lo, hi int) bool {
	for i := range s.p.ops {
		for k := lo; k <= hi; k++ {
			want := ProtocolAt(at, 0, classUpper(k)-1)
			if Protocol(s.p.ops[i].classes[k].choice.Load()) != want {
				return false
			}
		}
	}
	return int(s.p.getAux.Load()) == at
}

func (s *adaptSim) switches() (n uint64) {
	for i := range s.p.ops {
		for k := range s.p.ops[i].classes {
			n += s.p.ops[i].classes[k].switches.Load()
		}
	}
	return n
}

// TestAdaptiveFindsCrossover starts at 4 KiB with the protocols crossing
// at 16 KiB: within a bound of requests every class from 32 B to 64 KiB
// chooses by the crossover, sets and gets, and then stays.
func TestAdaptiveFindsCrossover(t *testing.T) {
	s := newAdaptSim(t, AdaptiveConfig{}, DefaultMaxEager, 4096, crossover(16<<10))
	const bound = 400_000
	n := s.run(bound/2, 6, 16, func() bool { return s.settledAt(16<<10, 6, 16) })
	if !s.settledAt(16<<10, 6, 16) {
		t.Fatalf("not settled at 16 KiB after %d requests: %s", n, adaptDump(s.p))
	}
	t.Logf("settled after %d requests (%v of fake time), %d switches", n, time.Duration(s.now-s.p.epoch), s.switches())
	sw := s.switches()
	s.run(200_000, 6, 16, nil)
	if !s.settledAt(16<<10, 6, 16) || s.switches() != sw {
		t.Fatalf("moved after settling: %d switches, was %d: %s", s.switches(), sw, adaptDump(s.p))
	}
}

// TestAdaptiveFollowsCrossover moves the crossover from 16 KiB to 4 KiB
// mid-stream: the policy follows within its window and dwell.
func TestAdaptiveFollowsCrossover(t *testing.T) {
	s := newAdaptSim(t, AdaptiveConfig{}, DefaultMaxEager, 4096, crossover(16<<10))
	s.run(500_000, 6, 16, nil) // 10 s: settled, and past the back margin
	if !s.settledAt(16<<10, 6, 16) {
		t.Fatalf("not settled at 16 KiB: %s", adaptDump(s.p))
	}
	s.cost = crossover(4 << 10)
	moved := s.now
	cfg := s.p.cfg
	s.run(int((cfg.Window+cfg.Dwell)/adaptStep)/2, 6, 16, func() bool { return s.settledAt(4<<10, 6, 16) })
	if !s.settledAt(4<<10, 6, 16) {
		t.Fatalf("not at 4 KiB %v after the move: %s", time.Duration(s.now-moved), adaptDump(s.p))
	}
	t.Logf("followed in %v", time.Duration(s.now-moved))
}

// TestAdaptiveNoiseNoFlipFlop gives both protocols the same cost under
// 20% lognormal noise for a minute: a class switches at most once.
func TestAdaptiveNoiseNoFlipFlop(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		s := newAdaptSim(t, AdaptiveConfig{}, DefaultMaxEager, 4096, func(int, Protocol) float64 { return 5000 })
		s.rng, s.noise = rand.New(rand.NewPCG(seed, 7)), 0.2
		s.run(int(time.Minute/adaptStep)/2, 12, 12, nil)
		for i := range s.p.ops {
			n := s.p.ops[i].classes[12].switches.Load()
			t.Logf("seed %d: %v: %d switches", seed, s.p.ops[i].op, n)
			if n > 1 {
				t.Errorf("seed %d: %v class 2-4 KiB switched %d times: %s", seed, s.p.ops[i].op, n, adaptDump(s.p))
			}
		}
	}
}

// TestAdaptiveNeverEagerAboveMax makes eager far cheaper everywhere with a
// max eager that is no power of two: no set at or above it goes eager,
// no get threshold exceeds it (adaptSim checks both), and the classes it
// cuts go rendezvous whole.
func TestAdaptiveNeverEagerAboveMax(t *testing.T) {
	const maxEager = 10000
	s := newAdaptSim(t, AdaptiveConfig{}, maxEager, 4096, func(n int, p Protocol) float64 {
		if p == Eager {
			return 100
		}
		return 10000
	})
	s.run(300_000, 10, 20, nil)
	last := bits.Len(maxEager) - 1 // the largest class all of whose sizes may go eager
	if got := classUpper(last); got > maxEager {
		t.Fatalf("class %d reaches %d, above max eager", last, got)
	}
	for n := classUpper(last); n < 1<<20; n += 997 {
		if p := s.p.setProtocol(n, s.now); p != Rendezvous {
			t.Fatalf("a set of %d bytes, of a class above max eager %d, went %v", n, maxEager, p)
		}
	}
	if aux := int(s.p.getAux.Load()); aux != classUpper(last) {
		t.Errorf("get threshold %d, want %d: every class that may go eager chooses it: %s", aux, classUpper(last), adaptDump(s.p))
	}
}

// TestAdaptiveExploreShare counts the requests sent by the other protocol
// in a class whose choice is settled, and the gets' forced thresholds:
// Explore of them, five times as many (at most half) over the first
// window.
func TestAdaptiveExploreShare(t *testing.T) {
	for _, explore := range []float64{0.02, 0.1} {
		p := newAdaptivePolicy(AdaptiveConfig{Explore: explore}.withDefaults(), DefaultMaxEager, 4096, func() int64 { return 0 })
		for _, at := range []struct {
			now   int64
			share float64
		}{{0, min(5*explore, 0.5)}, {int64(p.cfg.Window) - 1, min(5*explore, 0.5)}, {int64(p.cfg.Window), explore}} {
			const n = 200_000
			var other, forced [2]int
			for range n {
				if p.setProtocol(100, at.now) == Rendezvous {
					other[0]++
				}
				if p.setProtocol(100_000, at.now) == Eager {
					other[1]++
				}
				switch p.getThreshold(at.now) {
				case 0:
					forced[0]++
				case DefaultMaxEager:
					forced[1]++
				}
			}
			tol := 4 * math.Sqrt(at.share*n) // four standard deviations
			within := func(got int, want float64) bool { return math.Abs(float64(got)-want) <= tol }
			if !within(other[0], at.share*n) || other[1] != 0 {
				t.Errorf("explore %v at %v: %d of %d small sets went rendezvous (want %.0f), %d large ones eager (want 0)",
					explore, time.Duration(at.now), other[0], n, at.share*n, other[1])
			}
			if !within(forced[0], at.share*n/2) || !within(forced[1], at.share*n/2) {
				t.Errorf("explore %v at %v: gets forced rendezvous %d, eager %d of %d, want %.0f each",
					explore, time.Duration(at.now), forced[0], forced[1], n, at.share*n/2)
			}
		}
	}
}

// TestAdaptiveGetThresholdMajority checks the get threshold against
// choices out of line.
func TestAdaptiveGetThresholdMajority(t *testing.T) {
	p := newAdaptivePolicy(AdaptiveConfig{}.withDefaults(), DefaultMaxEager, 0, func() int64 { return 0 })
	for _, tc := range []struct {
		eager []int
		want  int
	}{
		{nil, 0},
		{[]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, 4096},
		{[]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15}, 4096}, // one eager class above
		{[]int{0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12}, 4096},        // one rendezvous class below
		{[]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, DefaultMaxEager},
	} {
		for k := range p.ops[1].classes {
			p.ops[1].classes[k].choice.Store(uint32(Rendezvous))
		}
		for _, k := range tc.eager {
			p.ops[1].classes[k].choice.Store(uint32(Eager))
		}
		p.setGetAux()
		if got := int(p.getAux.Load()); got != tc.want {
			t.Errorf("eager classes %v: get threshold %d, want %d", tc.eager, got, tc.want)
		}
	}
}

func TestLowerT(t *testing.T) {
	a := []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	b := []uint32{21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40}
	// Trimming 1 of 20 at each end leaves 18, means 10.5 and 30.5; the
	// winsorized samples (2, 2, 3, ..., 18, 19, 19 and b's alike) have
	// squared deviations summing to 629, so each squared standard error
	// is 629 / (18 * 17).
	if got, want := lowerT(judgeOf(a, nil), judgeOf(b, nil), false), 20/math.Sqrt(2*629.0/306); math.Abs(got-want) > 1e-9 {
		t.Errorf("a below b: t %v, want %v", got, want)
	}
	if tt := lowerT(judgeOf(b, nil), judgeOf(a, nil), false); tt > -5 {
		t.Errorf("a above: t %v, want below -5", tt)
	}
	if tt := lowerT(judgeOf(a, nil), judgeOf(a, nil), false); tt != 0 {
		t.Errorf("the same: t %v, want 0", tt)
	}
}

// A protocol twice as fast is told apart although both windows hold a
// few stalls a hundred times their latencies, which decide a plain mean
// and its variance: the sample of a loaded host.
func TestAdaptiveRuleSeesPastStalls(t *testing.T) {
	p := newAdaptivePolicy(AdaptiveConfig{}.withDefaults(), DefaultMaxEager, DefaultEagerThreshold, func() int64 { return 0 })
	c := &p.ops[0].classes[0]
	rng := rand.New(rand.NewPCG(3, 4))
	window := func(body float64) []uint32 {
		var w []uint32
		for i := range 128 {
			lat := body * math.Exp(0.3*rng.NormFloat64())
			if i%40 == 7 {
				lat = 5e6 * (1 + rng.Float64())
			}
			w = append(w, uint32(lat))
		}
		slices.Sort(w)
		return w
	}
	fast, slow := window(40e3), window(80e3)
	now := int64(10 * time.Second)
	if !p.better(c, Rendezvous, judgeOf(fast, nil), judgeOf(slow, nil), now) {
		ma, _ := trimmed(fast)
		mb, _ := trimmed(slow)
		t.Errorf("the protocol twice as fast was not judged better: trimmed means %.0f and %.0f, t %.2f", ma, mb, lowerT(judgeOf(fast, nil), judgeOf(slow, nil), false))
	}
	if p.better(c, Rendezvous, judgeOf(slow, nil), judgeOf(fast, nil), now) {
		t.Error("the protocol twice as slow was judged better")
	}
}

// A protocol whose median is lower but whose tail is heavier loses on
// the trimmed mean when the tail is more than the trim: the rate and the
// high percentiles follow the tail.
func TestAdaptiveRuleWeighsTheTail(t *testing.T) {
	p := newAdaptivePolicy(AdaptiveConfig{}.withDefaults(), DefaultMaxEager, DefaultEagerThreshold, func() int64 { return 0 })
	c := &p.ops[0].classes[0]
	var tight, tailed []uint32
	for i := range 100 {
		tight = append(tight, uint32(100+i%5))
		lat := uint32(90 + i%5)
		if i%5 == 0 {
			lat = 1000
		}
		tailed = append(tailed, lat)
	}
	slices.Sort(tight)
	slices.Sort(tailed)
	now := int64(10 * time.Second)
	if p.better(c, Rendezvous, judgeOf(tailed, nil), judgeOf(tight, nil), now) {
		t.Error("the heavier-tailed protocol, median 93 against 102 but mean 274 against 102, was judged better")
	}
	if !p.better(c, Rendezvous, judgeOf(tight, nil), judgeOf(tailed, nil), now) {
		t.Error("the tight protocol, mean 102 against 274, was not judged better")
	}
}

// adaptDump is the policy's state for a failure message.
func adaptDump(p *adaptivePolicy) string {
	var b strings.Builder
	for _, c := range p.state() {
		if c.EagerRequests+c.RendezvousRequests > 0 {
			fmt.Fprintf(&b, "\n\t%v %d: %v eager %v%+v (%d) rdv %v%+v (%d) switches %d", c.Op, c.Lower, c.Choice,
				c.EagerMean, c.EagerAfter, c.EagerRequests, c.RendezvousMean, c.RendezvousAfter, c.RendezvousRequests, c.Switches)
		}
	}
	fmt.Fprintf(&b, "\n\tget threshold %d", p.getAux.Load())
	return b.String()
}

// TestAdaptiveWeighsWhatIsLeftBehind: 16 KiB sets and gets take 100 µs by
// rendezvous and 120 µs by eager, but rendezvous leaves 60 µs of work the
// client's next request waits for (a release the server handles after
// the reply): by its latency alone rendezvous wins, by what it costs
// eager does. Every class of the run moves to eager, and stays.
func TestAdaptiveWeighsWhatIsLeftBehind(t *testing.T) {
	big := func(n int) bool { return n >= 1<<14 }
	s := newAdaptSim(t, AdaptiveConfig{}, DefaultMaxEager, DefaultEagerThreshold, func(n int, p Protocol) float64 {
		switch {
		case !big(n) && p == Eager:
			return 10e3
		case !big(n):
			return 25e3
		case p == Eager:
			return 120e3
		}
		return 100e3
	})
	s.leave = func(n int, p Protocol) float64 {
		if big(n) && p == Rendezvous {
			return 60e3
		}
		return 0
	}
	s.noise = 0.2
	draw := func() int {
		if s.rng.IntN(2) == 0 {
			return s.size(7, 7)
		}
		return s.size(15, 15)
	}
	eager := func() bool {
		for i := range s.p.ops {
			if Protocol(s.p.ops[i].classes[15].choice.Load()) != Eager {
				return false
			}
		}
		return true
	}
	start := s.now
	for s.now-start < int64(30*time.Second) && !eager() {
		s.set(draw())
		s.get(draw())
	}
	if !eager() {
		t.Fatalf("after %v the 16 KiB classes are not eager:%s", time.Duration(s.now-start), adaptDump(s.p))
	}
	t.Logf("eager after %v of fake time:%s", time.Duration(s.now-start), adaptDump(s.p))
	settled := s.switches()
	for range 200_000 {
		s.set(draw())
		s.get(draw())
	}
	if n := s.switches() - settled; n != 0 || !eager() {
		t.Errorf("%d switches after settling, eager %v:%s", n, eager(), adaptDump(s.p))
	}
}

// TestAdaptiveSettlesAtALowRate: gets of 8 KiB to 32 KiB, which eager
// serves in half the time, at 1000 a second, start at the default 4 KiB
// threshold, so rendezvous. Exploration sends about 1% of them eager, a
// few a second per class, fewer than one window holds enough of; the
// sparse protocol's samples reach further back, and every class settles on
// eager within 10 s.
func TestAdaptiveSettlesAtALowRate(t *testing.T) {
	s := newAdaptSim(t, AdaptiveConfig{}, DefaultMaxEager, DefaultEagerThreshold, crossover(1<<20))
	s.step = time.Millisecond
	start := s.now
	eager := func() bool {
		for k := 14; k <= 16; k++ {
			if Protocol(s.p.ops[1].classes[k].choice.Load()) != Eager {
				return false
			}
		}
		return int(s.p.getAux.Load()) == DefaultMaxEager
	}
	for s.now-start < int64(10*time.Second) && !eager() {
		s.get(s.size(14, 16))
	}
	if !eager() {
		t.Fatalf("after %v of 1000 gets a second the get threshold is %d, want %d; %+v",
			time.Duration(s.now-start), s.p.getAux.Load(), DefaultMaxEager, s.p.state())
	}
	t.Logf("settled after %v, %d gets", time.Duration(s.now-start), s.reqs)
}
