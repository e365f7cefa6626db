// Package tunebench runs package tune over the load generator: it reads a
// tune's plan from a workload and the flags (Plan), sizes the harness for
// it (HarnessWorkload, LimitCells) and measures each request with
// bench.Run (Measurer). It is apart from tune so that tune, whose Result
// report and plot read, imports no harness.
package tunebench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/tune"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// Measurer measures with the load runner: each call is one bench.Run
// of a single cell whose mix is only the op, with the threshold forcing the
// protocol: 0 for rendezvous, key size + value size + 1 for eager (the
// threshold counts key plus value bytes and eager needs strictly fewer).
type Measurer struct {
	// Config is the template: seed, keys, phases, load, dialer and codec.
	// ValueSizes, Thresholds, Mix, Preload and Verify are set per call.
	Config bench.Config
	// Unsupported reports whether an error from the run means the protocol
	// cannot carry the size (for example the server's eager limit); nil
	// means no error does.
	Unsupported func(error) bool
	// Harness is the harness's own cost on the host, which each sample's
	// p50 is set against as a run's cells are (results.OverheadCheck);
	// nil when not measured.
	Harness *results.HarnessCost
	// Link and Cores are the transport the harness runs over and the CPUs
	// this process may run on: with them each measurement carries the
	// check a run gives its cells from them (results.BusyPollCheck), so
	// a load of more spinners than CPUs is not trusted in a tune either.
	// Cores 0: not made.
	Link  results.Transport
	Cores int
}

// Measure implements tune.Measurer. A request under the adaptive policy
// (tune.AdaptiveThreshold) dials the store's adaptive threshold, and its
// sample merges the op's operations by both protocols. The sample carries
// its cell's checks and its p50 set against the harness's cost.
func (b *Measurer) Measure(ctx context.Context, r tune.Request) (tune.Sample, error) {
	measure := b.measureOp
	if r.Whole {
		measure = b.measureWhole
	}
	s, err := measure(ctx, r)
	if err != nil {
		return s, err
	}
	if k, ok := results.P50OverheadCheck(s.P50, b.Harness); ok {
		s.Checks = results.SetChecks(s.Checks, []results.Check{k})
		s.Warnings = append(s.Warnings, results.CheckWarnings([]results.Check{k})...)
	}
	return s, nil
}

// measureOp measures one (op, size) by r's protocol or policy.
func (b *Measurer) measureOp(ctx context.Context, r tune.Request) (tune.Sample, error) {
	op, size, p := r.Op, r.Size, r.Protocol
	cfg := b.Config
	cfg.Sizes, cfg.SizesSpec, cfg.ValueSizes = nil, "", []int{size}
	cfg.Thresholds = []int{0}
	switch {
	case r.Threshold == tune.AdaptiveThreshold:
		cfg.Thresholds = []int{storeThreshold(r.Threshold)}
	case p == tune.Eager:
		cfg.Thresholds = []int{tune.EagerThreshold(cfg.Keys.Size, size)}
	}
	cfg.Verify = false
	withLoad(&cfg, r)
	var want bench.Op
	switch op {
	case rdmakv.OpGet:
		cfg.Mix, cfg.Preload, want = workload.Mix{Get: 1}, true, bench.OpGet
	case rdmakv.OpSet:
		cfg.Mix, cfg.Preload, want = workload.Mix{Set: 1}, false, bench.OpSet
	default:
		return tune.Sample{}, fmt.Errorf("op %s cannot be tuned (get or set)", op)
	}
	rep, err := b.run(ctx, cfg)
	if err != nil {
		return tune.Sample{}, err
	}
	if r.Threshold == tune.AdaptiveThreshold {
		return opSample(rep.Measurements, want)
	}
	var other bool
	for _, m := range rep.Measurements {
		if m.Op != want || m.Count == 0 {
			continue
		}
		if m.Protocol != p {
			other = other || m.Protocol != bench.Unknown
			continue
		}
		if failed := failures(&m); 2*failed > m.Count {
			return tune.Sample{}, fmt.Errorf("%d of %d operations failed", failed, m.Count)
		}
		return sample(&m)
	}
	if other {
		// The target chose the other protocol despite the forced threshold:
		// this one cannot carry the size.
		return tune.Sample{}, fmt.Errorf("%w: target used another protocol", tune.ErrUnsupported)
	}
	return tune.Sample{}, fmt.Errorf("no %s operation completed", op)
}

// opSample is the sample of op's operations by both protocols, between
// which the adaptive policy chose, merged.
func opSample(ms []bench.Measurement, op bench.Op) (tune.Sample, error) {
	var mine []bench.Measurement
	for _, m := range ms {
		if m.Op == op {
			mine = append(mine, m)
		}
	}
	m, warnings, checks, err := merged(mine)
	if err != nil {
		return tune.Sample{}, err
	}
	s, err := sample(m)
	s.Warnings, s.Checks = warnings, checks
	return s, err
}

// run is bench.Run of cfg, a refusal of its threshold wrapping
// tune.ErrUnsupported and an interrupted run context.Canceled.
func (b *Measurer) run(ctx context.Context, cfg bench.Config) (*bench.Report, error) {
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		if b.Unsupported != nil && b.Unsupported(err) {
			return nil, fmt.Errorf("%w: %v", tune.ErrUnsupported, err)
		}
		return nil, err
	}
	if rep.Interrupted {
		return nil, context.Canceled
	}
	for i := range rep.Measurements {
		m := &rep.Measurements[i]
		if k, ok := results.BusyPollCheck(b.Link, m.Load, b.Cores); ok {
			m.Checks = results.SetChecks(m.Checks, []results.Check{k})
		}
	}
	return rep, nil
}

// failures are m's failed operations, counted as every errors figure is
// (results.Cell.Failures): a GET that misses measured an answer.
func failures(m *bench.Measurement) int64 {
	return results.Cell{Errors: m.ErrorCounts()}.Failures()
}

// withLoad sets cfg's load to r's: its connections and depth, closed
// loop or open at its rate. An open loop's measure phase is counted in
// operations when r needs a minimum: at least that many, else as many
// as the workload's measure duration holds at the rate. A closed loop's
// runs until it has the minimum, within a cap (untilEnough).
func withLoad(cfg *bench.Config, r tune.Request) {
	l := &cfg.Load
	l.Connections, l.Depth, l.Ramp = r.Load.Connections, r.Load.Depth, nil
	if !r.Load.Open() {
		l.Mode, l.Rate, l.Pacing = "closed", 0, ""
		cfg.Measure = untilEnough(cfg.Measure, r.MinOps)
		return
	}
	l.Mode, l.Rate = "open", r.Load.Rate
	if r.MinOps > 0 {
		ops := int64(math.Ceil(r.Load.Rate * time.Duration(cfg.Measure.Duration).Seconds()))
		cfg.Measure = workload.Phase{Ops: max(r.MinOps, ops, cfg.Measure.Ops)}
	}
}

// sample is what tune reads of a measurement.
func sample(m *bench.Measurement) (tune.Sample, error) {
	secs := m.Duration.Seconds()
	if secs <= 0 {
		return tune.Sample{}, errors.New("measure phase took no time")
	}
	ops := float64(m.Count) / secs
	q := func(pct float64) float64 { return float64(m.Hist.ValueAtQuantile(pct)) }
	s := tune.Sample{P50: q(50), P90: q(90), P99: q(99), P999: q(99.9), Count: m.Count,
		OpsPerSec: ops, BytesPerSec: ops * float64(m.ValueSize), Phases: phaseP50s(&m.Phases),
		Warnings: m.Warnings(), Checks: m.AllChecks()}
	if c := m.CPU; c != nil && c.Ops > 0 {
		perOp := func(t bench.CPUTime) float64 { return float64(t.User+t.Sys) / float64(c.Ops) }
		s.CPUScope, s.ClientCPU = results.CPUScopeClient, perOp(c.Client)
		if c.Process {
			s.CPUScope = results.CPUScopeProcess
		}
		if c.Server != nil {
			s.ServerCPU = perOp(*c.Server)
		}
	}
	return s, nil
}

// phaseP50s is the p50 of each recorded phase, by name (nil without any).
func phaseP50s(h *bench.PhaseHists) map[string]float64 {
	var out map[string]float64
	for p, hist := range h {
		if hist == nil {
			continue
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[bench.OpPhase(p).String()] = float64(hist.ValueAtQuantile(50))
	}
	return out
}

// MaxStretch is how many times its duration a timed measure phase without
// until may run on, when it has fewer operations than the comparison
// needs: a slow host then measures longer rather than failing the tune.
const MaxStretch = 8

// untilEnough is phase ph running until it holds minOps operations: an
// until of the workload's gains the minimum within its own cap; a timed
// phase becomes its duration at least, until the minimum, within
// MaxStretch times the duration. A phase counted in operations is left
// as it is: its count is checked before anything is measured
// (tune.Config.CheckMeasureOps).
func untilEnough(ph workload.Phase, minOps int64) workload.Phase {
	if minOps <= 0 {
		return ph
	}
	switch {
	case ph.Until != nil:
		u := *ph.Until
		u.MinOps = max(u.MinOps, minOps)
		ph.Until = &u
	case ph.Duration > 0 && ph.Ops == 0:
		ph = workload.Phase{Duration: ph.Duration, Until: &workload.Until{MinOps: minOps}, MaxDuration: MaxStretch * ph.Duration}
	}
	return ph
}
