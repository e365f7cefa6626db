package tunebench

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/bench/benchtest"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/rdmakv"
)

// A sample carries its cell's checks and its p50 set against the
// harness's cost, as a run's cell is: a p50 within 10× of the harness's
// own per-operation cost fails, is a warning and leaves the sample
// untrusted; far above it, the check passes.
func TestSampleJudgedAgainstHarness(t *testing.T) {
	req := tune.Request{Op: rdmakv.OpSet, Size: 64, Protocol: tune.Eager, Load: tune.Load{Connections: 1, Depth: 1}}
	measure := func(overheadNs float64) tune.Sample {
		t.Helper()
		m := &Measurer{Config: benchConfig(&benchtest.Fake{}), Harness: &results.HarnessCost{OverheadNs: overheadNs}}
		s, err := m.Measure(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	overhead := func(s tune.Sample) (results.Check, bool) {
		i := slices.IndexFunc(s.Checks, func(k results.Check) bool { return k.Name == results.CheckOverhead })
		if i < 0 {
			return results.Check{}, false
		}
		return s.Checks[i], true
	}
	slow := measure(1e12) // no fake answers in under a second
	k, ok := overhead(slow)
	if !ok || k.Pass || slow.Trusted() {
		t.Errorf("harness at 1000s per op: check %+v (present %v), trusted %v", k, ok, slow.Trusted())
	}
	if !slices.ContainsFunc(slow.Warnings, func(w results.Warning) bool { return w.Kind == results.WarnCheckPrefix+results.CheckOverhead }) {
		t.Errorf("failed overhead check is no warning: %+v", slow.Warnings)
	}
	fast := measure(1e-3)
	if k, ok := overhead(fast); !ok || !k.Pass {
		t.Errorf("harness at 1ps per op: check %+v (present %v)", k, ok)
	}
	if slices.Contains(fast.FailedChecks(), results.CheckOverhead) {
		t.Errorf("failed checks %v", fast.FailedChecks())
	}
}

// A whole-workload sample, merged from its ops' and protocols' cells,
// carries their checks too.
func TestWholeSampleCarriesChecks(t *testing.T) {
	m := wholeMeasurer(t, &benchtest.Fake{})
	m.Harness = &results.HarnessCost{OverheadNs: 1e12}
	s, err := m.Measure(context.Background(), tune.Request{Whole: true, Threshold: 4096, Load: tune.Load{Connections: 1, Depth: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Checks) < 2 || s.Trusted() || !slices.Contains(s.FailedChecks(), results.CheckOverhead) {
		t.Errorf("whole sample checks %+v", s.Checks)
	}
}

// A measurement whose busy pollers outnumber the CPUs fails the host
// check, as a run's cell does; the same load on enough CPUs passes it.
func TestSampleJudgesBusyPollers(t *testing.T) {
	req := tune.Request{Op: rdmakv.OpGet, Size: 64, Protocol: tune.Eager, Load: tune.Load{Connections: 4, Depth: 1}}
	busy := results.Transport{Name: rdmakv.TransportVerbs, ClientPoll: "busy"}
	for _, c := range []struct {
		cores int
		pass  bool
	}{{1, false}, {2, false}, {4, true}} {
		m := &Measurer{Config: benchConfig(&benchtest.Fake{}), Link: busy, Cores: c.cores}
		s, err := m.Measure(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(s.Checks, func(k results.Check) bool { return k.Method == "busy-poll oversubscribed" })
		if i < 0 {
			t.Fatalf("%d cores: no busy-poll check among %+v", c.cores, s.Checks)
		}
		// Other checks of a fake's short run may fail on a busy host, so
		// only a failed busy-poll check is held to untrust the sample.
		if k := s.Checks[i]; k.Pass != c.pass || !c.pass && s.TrustedFor(false) {
			t.Errorf("4 spinners on %d cores: check %+v, trusted %v; want pass %v", c.cores, k, s.TrustedFor(false), c.pass)
		}
	}
}

// A sample merged from parts (the whole workload; the adaptive policy's
// two protocols) judges its precision on all their operations: a part
// of six operations, unbounded alone, neither fails it nor warns.
func TestMergedSampleJudgesItsOwnPrecision(t *testing.T) {
	part := func(p bench.Protocol, n int64) bench.Measurement {
		h := results.NewHistogram()
		for i := range n {
			_ = h.RecordValue(20_000 + 10*(i%100))
		}
		m := bench.Measurement{Op: bench.OpGet, Protocol: p, ValueSize: 64, Count: n, Duration: time.Second, Hist: h}
		m.Errors[bench.KindNone] = n
		return m
	}
	ms := []bench.Measurement{part(bench.Eager, 994), part(bench.Rendezvous, 6)}
	if results.TrustedChecks(ms[1].AllChecks(), false) {
		t.Fatalf("a part of 6 operations passed: %+v", ms[1].AllChecks())
	}
	m, warnings, checks, err := merged(ms)
	if err != nil {
		t.Fatal(err)
	}
	if m.Count != 1000 || !results.TrustedChecks(checks, false) {
		t.Errorf("merged %d operations, checks %+v: want 1000, precise", m.Count, checks)
	}
	for _, w := range warnings {
		if results.IsPrecisionWarning(w) && strings.Contains(w.Message, "p50") {
			t.Errorf("a part's precision warning survived: %+v", w)
		}
	}
}
