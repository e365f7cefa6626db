package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/store"
)

// Measurement is one cell's measure phase for one (op, protocol).
type Measurement struct {
	Threshold, ValueSize int
	// Distribution is Config.SizesSpec: the law the values' sizes were
	// drawn from, ValueSize then naming the cell; "" for a fixed size.
	Distribution string
	Op           Op
	Protocol     Protocol
	// Count is every completed operation, failed ones included; Hist holds
	// all their latencies, so Hist.TotalCount() == Count.
	Count int64
	// Errors counts outcomes by kind; Errors[KindNone] is the successes.
	Errors [NumKinds]int64
	// Bytes are the value bytes the successful operations moved: the
	// values set, and those got.
	Bytes int64
	// Start is when the measure phase began; Duration its wall time, until
	// the last worker finished.
	Start    time.Time
	Duration time.Duration
	Hist     *hdrhistogram.Histogram
	// Intervals are the per-second histograms, in time order.
	Intervals []Interval
	Load      results.CellLoad
	// IssueDelay (open loop only; nil otherwise) is, over the whole cell,
	// how late the harness issued the operations it was free to issue on
	// time: its own timer and scheduling slop, included in Hist.
	IssueDelay *hdrhistogram.Histogram
	// Phases split the latencies into their parts when the run records
	// them (Config.OpPhases) and the target timed its operations.
	Phases PhaseHists
	// CPU is the measure phase's CPU time, shared by every Measurement of
	// the phase; nil when this process's could not be read.
	CPU *PhaseCPU
	// HWCounters are what the RDMA device's counters grew by over the
	// measure phase (Config.DeviceCounters), shared by every Measurement
	// of the phase; nil when none were read.
	HWCounters map[string]uint64
	// CreditWaits is how many messages of the phase's connections waited
	// for the server's credit over the measure phase (CreditWaiter),
	// shared by every Measurement of the phase; nil when no connection
	// counts them.
	CreditWaits *uint64
	// ReceiveMemory is what the store registers to receive at the
	// threshold and the run's load (Config.ReceiveMemory), shared by
	// every Measurement of the phase; nil when not known.
	ReceiveMemory *results.ReceiveMemory
	// RecordedMisses (a replay's gets) are the gets the trace recorded as
	// misses; Trace is what results say of the replay (nil: none).
	RecordedMisses int64
	Trace          *Replay
	// Classes split the latencies and bytes by the values' size classes
	// when the run draws its values' sizes (Config.Sizes) or replays a
	// trace; Sizes is then the op's mix of sizes and protocols at this
	// threshold, shared with the op's other Measurement. Both nil for a
	// fixed size.
	Classes *classSums
	Sizes   *results.SizeMix
	// Adaptive (an adaptive cell) is what the clients' policy chose for
	// the op over the phase, interval by interval (AdaptiveReporter),
	// shared with the op's other Measurement; nil for a fixed threshold.
	Adaptive *results.AdaptiveTimeline
	// Host is the host sampled around the measure phase, shared by every
	// Measurement of the phase; its cells' host checks come from it.
	Host *hostPhase
	// WarmupEnd and MeasureEnd say what ended the cell's warmup (nil:
	// none) and measure phase, shared by every Measurement of the phase.
	WarmupEnd, MeasureEnd *results.PhaseEnd
	// Checks are the tests the harness computed from the samples its
	// workers kept (attachChecks): the cell's independence, and the
	// open-loop phase's inter-arrivals and late starts.
	Checks []results.Check
}

// Report is what a run measured.
type Report struct {
	Start, End   time.Time
	Measurements []Measurement
	Verify       VerifyCounts
	// Interrupted is set when the context was cancelled; Measurements then
	// hold what was measured up to that point.
	Interrupted bool
}

// Run executes every cell of cfg. On cancellation of ctx it stops issuing,
// lets operations in flight finish, and returns what it measured with
// Interrupted set and a nil error. An error (dialing, preloading) comes with
// the partial report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, rep: &Report{Start: time.Now()}, done: ctx.Done()}
	r.opCtx = context.WithoutCancel(ctx)
	stopWatch := context.AfterFunc(ctx, func() { r.stop.Store(true) })
	defer stopWatch()
	if r.cfg.Tick <= 0 {
		r.cfg.Tick = time.Second
	}
	err := r.run()
	if err == nil && !r.halted() {
		_, err = r.sync("end")
	} else if err != nil && r.cfg.Sync != nil && !r.syncFailed && !r.agreed {
		// Tell the other ranks, at what is their next meeting, to stop.
		_, _ = r.cfg.Sync("failed", true)
	}
	r.rep.End = time.Now()
	r.rep.Interrupted = ctx.Err() != nil
	return r.rep, err
}

type runner struct {
	cfg   Config
	rep   *Report
	opCtx context.Context
	done  <-chan struct{}
	stop  atomic.Bool
	// enough ends the phase running when its until holds (untilWatch);
	// warmupEnd is what ended the cell's warmup (nil: none).
	enough    atomic.Bool
	warmupEnd *results.PhaseEnd
	shards    []*shard
	// cell counts the cells run so far (Status.Cell); grid is the place of
	// the cell running in the (threshold, size) grid, which numbers its
	// random streams.
	cell, grid int
	keys       keygen.Generator // shared by every worker of the run; see keyGen
	replay     *replayer        // the cell's, in a replay
	// agreed is set when the ranks agreed to stop (Config.Sync);
	// syncFailed when a meeting itself failed.
	agreed, syncFailed bool
	// clientCPUWarned and serverCPUWarned are set once a failed CPU
	// reading of that side has been logged, countersWarned once a failed
	// counter reading has.
	clientCPUWarned, serverCPUWarned, countersWarned bool
}

// keyGen returns worker id's key generator for a phase. Generators without
// state are built once per run and shared (zipfian's constructor is
// O(keys.count), too slow to repeat per worker and phase on a large key
// space). Sequential is partitioned, worker w taking w, w+W, ..., so that
// workers walk different keys instead of the same key in lockstep; latest
// keeps its own insert counter.
func (r *runner) keyGen(id, workers int) (KeyGen, error) {
	k := r.cfg.Keys
	switch k.Distribution {
	case keygen.Sequential:
		return keygen.NewSequential(int64(k.Count), int64(id), int64(workers)), nil
	case keygen.Latest:
		return keygen.New(k.Spec())
	}
	if r.keys == nil {
		g, err := keygen.New(k.Spec())
		if err != nil {
			return nil, err
		}
		r.keys = g
	}
	return r.keys, nil
}

func (r *runner) workers(conns []Conn, size int) ([]*worker, error) {
	W := r.cfg.Workers()
	m := r.cfg.Mix
	sum := m.Get + m.Set + m.Delete
	ws := make([]*worker, W)
	for i := range ws {
		w := &worker{
			id: r.cfg.Rank*W + i, workers: W * r.cfg.ranks(), local: i,
			t:        conns[i/r.cfg.Load.Depth],
			ctx:      r.opCtx,
			done:     r.done,
			stop:     &r.stop,
			enough:   &r.enough,
			codec:    r.cfg.Codec,
			keyCount: int64(r.cfg.Keys.Count),
			keySize:  r.cfg.Keys.Size,
			keySizes: r.cfg.keySizer(),
			getP:     m.Get / sum,
			setP:     (m.Get + m.Set) / sum,
			key:      make([]byte, r.cfg.Keys.Size),
			val:      make([]byte, size),
			pub:      new(pub),
		}
		w.buf = w.val
		if r.cfg.Trace != nil {
			w.buf, w.val = w.val[:0], w.val[:0] // replayValue grows it
		}
		if law := r.cfg.Sizes; law != nil {
			w.buf = make([]byte, law.Max())
			w.val = w.buf[:0]
			w.sizes = newSizer(law, r.cfg.Seed)
		}
		if r.cfg.Verify {
			w.shard = r.shards[i]
		}
		if r.cfg.OpPhases {
			w.phases = new(OpPhases)
			w.ctx = withOpPhases(r.opCtx, w.phases)
		}
		w.init()
		ws[i] = w
	}
	return ws, nil
}

// sync meets the other ranks before a phase (Config.Sync) and reports
// whether to stop: this rank was interrupted, or another rank was or
// failed. Alone, it only looks at the interrupt.
func (r *runner) sync(phase string) (bool, error) {
	if r.cfg.Sync == nil {
		return r.stop.Load(), nil
	}
	stop, err := r.cfg.Sync(phase, r.stop.Load())
	if err != nil {
		r.syncFailed = true
		return true, fmt.Errorf("cell %d %s: %w", r.cell, phase, err)
	}
	if stop {
		r.agreed = true
		r.stop.Store(true)
	}
	return stop, nil
}

// halted says the run is to stop: interrupted when alone, agreed at a
// meeting among ranks, so that every rank stops at the same point.
func (r *runner) halted() bool {
	if r.cfg.Sync != nil {
		return r.agreed
	}
	return r.stop.Load()
}

// stream numbers a worker's random source: cell (its place in the grid,
// threshold index x sizes + size index), phase and worker (its number
// across all ranks), so a phase's operations depend neither on how long
// earlier phases ran nor on the order the cells run in, and every rank's
// differ.
func stream(cell, phase, worker int) uint64 {
	return uint64(cell)<<32 | uint64(phase)<<24 | uint64(worker)
}

func (r *runner) runCell(conns []Conn, th, size int) error {
	ws, err := r.workers(conns, size)
	if err != nil {
		return err
	}
	defer func() {
		for _, w := range ws {
			r.rep.Verify.add(w.verify)
		}
	}()
	if r.cfg.Trace != nil {
		if r.replay, err = r.newReplayer(); err != nil {
			return err
		}
		defer r.replay.close()
	}
	if r.cfg.Preload {
		if stop, err := r.sync("preload"); err != nil || stop {
			return err
		}
		if err := r.preloadCell(ws, th, size); err != nil {
			return err
		}
	}
	r.warmupEnd = nil
	if ph := r.cfg.Warmup; ph.Duration > 0 || ph.Ops > 0 || ph.Until != nil {
		if stop, err := r.sync("warmup"); err != nil || stop {
			return err
		}
		if _, err := r.phase(ws, th, size, "warmup", ph, 0); err != nil {
			return err
		}
	}
	if stop, err := r.sync("measure"); err != nil || stop {
		return err
	}
	ms, err := r.phase(ws, th, size, "measure", r.cfg.Measure, 1)
	r.rep.Measurements = append(r.rep.Measurements, ms...)
	return err
}

// observe reports progress while fn runs in the workers; pacer (nil: none)
// gives the target rate.
func (r *runner) observe(st Status, ws []*worker, base time.Time, pacer Pacer) (stop func()) {
	obs := r.cfg.Observer
	if obs == nil {
		return func() {}
	}
	sum := func(ev Event) Status {
		s := st
		s.Event = ev
		s.Elapsed = time.Since(base)
		s.Rate = targetRate(pacer, s.Elapsed)
		for _, w := range ws {
			s.Ops += w.pub.ops.Load()
			s.Errors += w.pub.errs.Load()
		}
		return s
	}
	obs.Observe(sum(PhaseStart))
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(r.cfg.Tick)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				obs.Observe(sum(PhaseTick))
			}
		}
	})
	return func() {
		close(quit)
		wg.Wait()
		obs.Observe(sum(PhaseEnd))
	}
}

func (r *runner) status(th, size int, phase string) Status {
	return Status{
		Cell: r.cell, Cells: len(r.cfg.Thresholds) * len(r.cfg.ValueSizes),
		Threshold: th, ValueSize: size, Distribution: r.cfg.SizesSpec, Phase: phase,
	}
}

// preload writes every key once, worker w taking keys w, w+W, ... (the same
// partition verify mode uses).
func (r *runner) preload(ws []*worker, th, size int) error {
	return r.preloadBy(ws, r.status(th, size, "preload"), int64(r.cfg.Keys.Count), func(w *worker, idx int64) error {
		w.makeKey(idx)
		var slot int64
		if w.shard != nil {
			slot = idx / int64(w.workers)
		}
		if kind := w.preloadSet(idx, slot); kind != KindNone {
			return fmt.Errorf("preload threshold %d value size %d: set %s: %s", th, size, w.key, kind)
		}
		return nil
	})
}

// preloadBy runs a preload of n items, each written by do, worker w
// taking items w, w+W, ... of them; the first error stops every worker.
// st reports its progress.
func (r *runner) preloadBy(ws []*worker, st Status, n int64, do func(w *worker, i int64) error) error {
	st.LimitOps = n
	for _, w := range ws {
		w.ops, w.errs = 0, 0
		w.pub.ops.Store(0)
		w.pub.errs.Store(0)
	}
	end := r.observe(st, ws, time.Now(), nil)
	defer end()
	var first atomic.Pointer[error]
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() {
			for i := int64(w.id); i < n && !r.stop.Load() && first.Load() == nil; i += int64(w.workers) {
				if err := do(w, i); err != nil {
					first.CompareAndSwap(nil, &err)
					break
				}
				w.ops++
				w.publish(false)
			}
			w.publish(true)
		})
	}
	wg.Wait()
	if p := first.Load(); p != nil {
		return *p
	}
	return nil
}

// ErrorCounts are the operations that did not simply succeed, by kind
// name, as results.Cell.Errors holds them; a kind that never happened is
// absent.
func (m *Measurement) ErrorCounts() map[string]int64 {
	out := map[string]int64{}
	for k, n := range m.Errors {
		if k != int(KindNone) && n != 0 {
			out[ErrorKind(k).String()] = n
		}
	}
	return out
}

// Cell converts a measurement to its results.json form, naming its
// interval log (relative to the run directory) with results.HlogName.
func (m *Measurement) Cell() (results.Cell, error) {
	c := results.Cell{
		Op: m.Op.String(), ValueSize: m.ValueSize, Distribution: m.Distribution, Threshold: m.Threshold, Protocol: m.Protocol.String(),
		Count: m.Count, Errors: m.ErrorCounts(), DurationNs: int64(m.Duration), Load: m.Load,
		IntervalNs: intervalNs,
	}
	if m.Threshold == store.AdaptiveThreshold {
		c.Policy = results.PolicyAdaptive
	}
	if m.Duration > 0 {
		secs := m.Duration.Seconds()
		c.ThroughputOps = float64(m.Count) / secs
		if m.Op != OpDelete {
			ok := m.Count
			for k, n := range m.Errors {
				if k != int(KindNone) {
					ok -= n
				}
			}
			c.ThroughputBytes = float64(ok) * float64(m.ValueSize) / secs
			if m.Distribution != "" {
				c.ThroughputBytes = float64(m.Bytes) / secs
			}
		}
	}
	if m.Hist == nil {
		return c, errors.New("measurement without histogram")
	}
	c.Latency = results.Summarize(m.Hist)
	enc, err := results.EncodeHistogram(m.Hist)
	if err != nil {
		return c, err
	}
	c.Histogram = enc
	c.Hlog = results.HlogName(c)
	if m.IssueDelay != nil && m.IssueDelay.TotalCount() > 0 {
		d := results.Summarize(m.IssueDelay)
		c.IssueDelay = &d
	}
	if c.Phases, err = m.Phases.cellPhases(); err != nil {
		return c, err
	}
	if m.CPU != nil {
		c.CPU = m.CPU.cell()
	}
	c.HWCounters = maps.Clone(m.HWCounters) // each cell its own, as results.json reads back
	if m.CreditWaits != nil {
		w := *m.CreditWaits
		c.CreditWaits = &w
	}
	if m.ReceiveMemory != nil {
		rm := *m.ReceiveMemory
		c.ReceiveMemory = &rm
	}
	if m.Classes != nil {
		if c.SizeClasses, err = m.Classes.cell(); err != nil {
			return c, err
		}
	}
	c.Sizes = m.Sizes.Clone()
	c.Adaptive = m.Adaptive.Clone()
	c.Checks = slices.Clone(m.Checks)
	c.Trace = m.Trace.cell(m.Op, m.RecordedMisses)
	c.Checks = results.SetChecks(c.Checks, m.Host.checks(m))
	c.WarmupEnd, c.MeasureEnd = clonePhaseEnd(m.WarmupEnd), clonePhaseEnd(m.MeasureEnd)
	return c, nil
}
