package tune

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/rdmakv"
)

// loadModel is a fake system in which load changes the winner. Eager
// copies the value on a CPU that the operations in flight contend for,
// so its cost per byte grows with them; rendezvous pays a fixed extra
// round trip and leaves the bytes to the NIC. Latency is the service time
// in a closed loop; an open loop adds queueing that grows without bound
// as the rate nears the workers' capacity.
type loadModel struct {
	rtt, EagerPerByte, Contention, rdvExtra, RdvPerByte float64
	Sigma                                               float64
	rnd                                                 *rand.Rand
	// CPU adds CPU figures: the server copies eager values (CPUPerByte)
	// and handles a rendezvous grant (CPUGrant); Scope is their CPUScope.
	CPUPerByte, CPUGrant float64
	Scope                string
	// Count is the operations a closed-loop measurement reports.
	Count int64
}

func newLoadModel(seed uint64) *loadModel {
	return &loadModel{rtt: 1000, EagerPerByte: 1, Contention: 0.5, rdvExtra: 4000, RdvPerByte: 0.05,
		Sigma: 0.01, rnd: rand.New(rand.NewPCG(seed, 7)), Count: 5000}
}

// queueTail is ln(100): the p99 of an exponential wait in means.
var queueTail = math.Log(100)

func (m *loadModel) service(r Request) float64 {
	w := float64(r.Load.Connections * r.Load.Depth)
	if r.Protocol == Eager {
		return m.rtt + m.EagerPerByte*float64(r.Size)*(1+m.Contention*(w-1))
	}
	return m.rtt + m.rdvExtra + m.RdvPerByte*float64(r.Size)
}

// capacity is the highest open-loop rate whose p99 is within goal.
func (m *loadModel) capacity(r Request, goal float64) float64 {
	return queueCapacity(m.service(r), r.Load, goal)
}

// queueCapacity is the highest open-loop rate whose p99 is within goal,
// of workers serving in s ns each at load l.
func queueCapacity(s float64, l Load, goal float64) float64 {
	if goal <= s {
		return 0
	}
	w := float64(l.Connections * l.Depth)
	x := (goal/s - 1) / queueTail
	return x / (1 + x) * w / s * 1e9
}

// crossover is where eager's and rendezvous's service times meet at w in
// flight.
func (m *loadModel) crossover(w int) float64 {
	return m.rdvExtra / (m.EagerPerByte*(1+m.Contention*float64(w-1)) - m.RdvPerByte)
}

func (m *loadModel) Measure(_ context.Context, r Request) (Sample, error) {
	out := queueSample(m.service(r)*(1+m.Sigma*m.rnd.NormFloat64()), r, m.Count)
	out.BytesPerSec = out.OpsPerSec * float64(r.Size)
	if m.Scope != "" {
		out.CPUScope, out.ClientCPU, out.ServerCPU = m.Scope, 500, m.CPUGrant
		if r.Protocol == Eager {
			out.ServerCPU = m.CPUPerByte * float64(r.Size)
		}
	}
	return out, nil
}

// queueSample is a measurement of r on workers serving in s ns each:
// the service time in a closed loop (count operations), and an open
// loop's queueing, which grows without bound as the rate nears their
// capacity.
func queueSample(s float64, r Request, count int64) Sample {
	w := float64(r.Load.Connections * r.Load.Depth)
	out := Sample{P50: s, P90: s, P99: s, P999: s, OpsPerSec: w / s * 1e9, Count: count}
	if r.Load.Open() {
		rho := r.Load.Rate * s / 1e9 / w
		out.OpsPerSec, out.Count = r.Load.Rate, max(r.MinOps, int64(r.Load.Rate))
		if rho >= 1 {
			out.OpsPerSec = w / s * 1e9
			out.P50, out.P99 = 1000*s, 1000*s
		} else {
			q := rho / (1 - rho)
			out.P50, out.P99 = s*(1+math.Ln2*q), s*(1+queueTail*q)
		}
	}
	return out
}

var c1c16 = []Load{{Connections: 1, Depth: 1}, {Connections: 16, Depth: 1}}

func TestMapFindsACrossoverPerLoad(t *testing.T) {
	m := newLoadModel(1)
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 65536), Repeats: 5, KeySize: 16, Loads: c1c16}, m)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Loads) != 2 {
		t.Fatalf("%d loads", len(res.Loads))
	}
	// The model crosses near 4.2KiB at one connection and near 470B at
	// sixteen: the first measured sizes above are 8KiB and 512B.
	for i, want := range []int{8192, 512} {
		o := res.Loads[i].Ops[0]
		if cross := m.crossover(res.Loads[i].Load.Connections); !o.Found || o.Crossover != want || math.Abs(o.EqualAt-cross)/cross > 0.1 {
			t.Errorf("at %s: found=%v crossover %d (equal at %.0f), want %d (model %.0f): outcome %d",
				res.Loads[i].Load, o.Found, o.Crossover, o.EqualAt, want, cross, o.Outcome)
		}
		if res.Loads[i].Recommended != want {
			t.Errorf("at %s: recommended %d, want %d", res.Loads[i].Load, res.Loads[i].Recommended, want)
		}
	}
	if res.Recommended != 0 {
		t.Errorf("loads disagree, but %d recommended overall", res.Recommended)
	}
	sizes, cells := res.Map(rdmakv.OpGet)
	if len(sizes) != 11 || cells[0][0].Winner != "eager" || cells[len(sizes)-1][1].Winner != "rendezvous" {
		t.Errorf("map %v %v", sizes, cells)
	}
	// 1KiB: eager at one connection, rendezvous at sixteen.
	if c := cells[4]; sizes[4] != 1024 || c[0].Winner != "eager" || c[1].Winner != "rendezvous" || c[1].Ratio <= 1 {
		t.Errorf("1KiB row %v", c)
	}
}

func TestMapAgreeingLoads(t *testing.T) {
	m := newLoadModel(2)
	m.Contention = 0 // load changes nothing
	loads := []Load{{Connections: 1, Depth: 1}, {Connections: 4, Depth: 8}}
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 65536), Repeats: 5, Loads: loads}, m)
	if err != nil {
		t.Fatal(err)
	}
	if res.Recommended != 8192 || res.Loads[0].Recommended != 8192 || res.Loads[1].Recommended != 8192 {
		t.Errorf("recommended %d, at each load %d and %d", res.Recommended, res.Loads[0].Recommended, res.Loads[1].Recommended)
	}
}

func TestCapacitySearchFindsTheModelsRate(t *testing.T) {
	m := newLoadModel(3)
	m.Sigma = 0
	slo := &SLO{Percentile: 99, Goal: 200e3}
	loads := []Load{{Connections: 1, Depth: 1}, {Connections: 4, Depth: 1}}
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{512, 2048, 8192}, Repeats: 1, SLO: slo, Loads: loads, Measure: 1}, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range res.Loads {
		for _, p := range l.Ops[0].Points {
			for _, side := range []struct {
				proto Protocol
				got   float64
			}{{Eager, p.EagerValue}, {Rendezvous, p.RdvValue}} {
				want := m.capacity(Request{Size: p.Size, Protocol: side.proto, Load: l.Load}, slo.Goal)
				if math.Abs(side.got-want)/want > SearchTolerance {
					t.Errorf("%s %d %s: capacity %.0f, model %.0f", l.Load, p.Size, side.proto, side.got, want)
				}
			}
			if !p.ByMargin {
				t.Errorf("one search decided by the sign test: %+v", p)
			}
		}
	}
	// At one connection eager's copy costs it the lead at 8KiB; at four
	// the copies contend and rendezvous leads from 2KiB.
	winners := func(i int) (w []string) {
		for _, p := range res.Loads[i].Ops[0].Points {
			w = append(w, string(p.Winner))
		}
		return w
	}
	if got := strings.Join(winners(0), " "); got != "eager eager rendezvous" {
		t.Errorf("1 connection: %s", got)
	}
	if got := strings.Join(winners(1), " "); got != "eager rendezvous rendezvous" {
		t.Errorf("4 connections: %s", got)
	}
}

func TestCapacityGoalNoneMeets(t *testing.T) {
	m := newLoadModel(4)
	m.Sigma = 0
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 128}, Repeats: 1, SLO: &SLO{Percentile: 99, Goal: 500}, Measure: 1}, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Loads[0].Ops[0].Points {
		if p.Winner != "neither" || p.EagerValue != 0 || !strings.Contains(p.Eager[0].SearchNote, "the goal fails down to") {
			t.Errorf("%d: winner %s, eager capacity %g, note %q", p.Size, p.Winner, p.EagerValue, p.Eager[0].SearchNote)
		}
	}
}

func TestObjectiveP99NeedsOperations(t *testing.T) {
	m := newLoadModel(5)
	m.Count = 1999
	_, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 128}, Repeats: 2, Objective: ObjP99}, m)
	if err == nil || !strings.Contains(err.Error(), "1999 operations measured; a p99 tune can compare needs at least 2000") {
		t.Errorf("err = %v", err)
	}
	m.Count = 2000
	if _, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 128}, Repeats: 2, Objective: ObjP99}, m); err != nil {
		t.Error(err)
	}
	if MinOps(99) != 2000 || MinOps(99.9) != 20000 {
		t.Errorf("MinOps: %d %d", MinOps(99), MinOps(99.9))
	}
}

func TestObjectiveCPU(t *testing.T) {
	m := newLoadModel(6)
	m.Scope, m.CPUPerByte, m.CPUGrant = "client", 2, 3000 // server CPU: eager dearer from 1.5KiB
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpSet}, Sizes: pow2(64, 65536), Repeats: 5, Objective: ObjCPU}, m)
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Loads[0].Ops[0]; !o.Found || o.Crossover != 2048 {
		t.Errorf("found=%v crossover=%d", o.Found, o.Crossover)
	}
	// The client's CPU is the same for both: no winner.
	res, err = Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpSet}, Sizes: pow2(64, 65536), Repeats: 5, Objective: ObjCPU, CPUSide: CPUClient}, m)
	if err != nil || res.Loads[0].Ops[0].Found {
		t.Errorf("client side: %v, outcome %d", err, res.Loads[0].Ops[0].Outcome)
	}
	// A process-scope sample's one figure is compared on either side.
	m.Scope = "process"
	res, err = Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpSet}, Sizes: []int{64, 128}, Repeats: 2, Objective: ObjCPU}, m)
	if p := res.Loads[0].Ops[0].Points[0]; err != nil || p.EagerValue != 500 || p.RdvValue != 500 {
		t.Errorf("process scope: %v, eager %g, rendezvous %g", err, p.EagerValue, p.RdvValue)
	}
	m.Scope = ""
	_, err = Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpSet}, Sizes: []int{64, 128}, Repeats: 2, Objective: ObjCPU}, m)
	if err == nil || !strings.Contains(err.Error(), "has no server CPU per op to compare") {
		t.Errorf("no CPU figure: %v", err)
	}
}

func TestObjectiveThroughput(t *testing.T) {
	m := newLoadModel(7)
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: pow2(64, 65536), Repeats: 5, Objective: ObjThroughput}, m)
	if err != nil {
		t.Fatal(err)
	}
	o := res.Loads[0].Ops[0]
	if !o.Found || o.Crossover != 8192 {
		t.Errorf("found=%v crossover=%d", o.Found, o.Crossover)
	}
	if p := o.Points[len(o.Points)-1]; p.Ratio <= 1 || p.RdvValue <= p.EagerValue {
		t.Errorf("64KiB: ratio %.2f, rdv %.0f eager %.0f ops/s", p.Ratio, p.RdvValue, p.EagerValue)
	}
}

func TestPairFlagsWarningsOnOneSide(t *testing.T) {
	m := newLoadModel(8)
	warn := MeasurerFunc(func(ctx context.Context, r Request) (Sample, error) {
		s, err := m.Measure(ctx, r)
		if r.Protocol == Eager && r.Size == 64 {
			s.Warnings = []results.Warning{{Kind: "bimodal", Message: "two modes"}}
		}
		return s, err
	})
	res, err := Run(context.Background(), Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 128}, Repeats: 4}, warn)
	if err != nil {
		t.Fatal(err)
	}
	pts := res.Loads[0].Ops[0].Points
	if want := (Flag{Protocol: Eager, Kind: "bimodal", Count: 4, Of: 4}); len(pts[0].Flags) != 1 || pts[0].Flags[0] != want || len(pts[1].Flags) != 0 {
		t.Errorf("flags %+v %+v", pts[0].Flags, pts[1].Flags)
	}
}

func TestConfigRejectsMixedJudging(t *testing.T) {
	cfg := Config{Ops: []rdmakv.Op{rdmakv.OpGet}, Sizes: []int{64, 128}, Repeats: 2, Objective: "p75", CPUSide: "both",
		SLO: &SLO{Percentile: 99, Goal: 1e6}, Loads: []Load{{Connections: 0, Depth: 1}, {Connections: 1, Depth: 1, Rate: 100}}}
	err := cfg.Validate()
	for _, want := range []string{`objective "p75"`, "choose one", `cpu side "both"`, "connections 0", "a latency goal searches the rate itself"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

func TestParseSLO(t *testing.T) {
	if s, err := ParseSLO("p99.9=2ms"); err != nil || s.Percentile != 99.9 || s.Goal != 2e6 || s.String() != "p99.9 <= 2ms" {
		t.Errorf("%+v %v", s, err)
	}
	for _, bad := range []string{"p99", "p75=1ms", "99=1ms", "p99=-1ms", "p99=soon"} {
		if _, err := ParseSLO(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
