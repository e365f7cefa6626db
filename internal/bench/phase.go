package bench

import (
	"errors"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/kvbench/kvbench/internal/hwcounters"
	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/workload"
)

// phase runs one warmup or measure phase; measure phases return one
// Measurement per (op, protocol) seen.
func (r *runner) phase(ws []*worker, th, size int, name string, ph workload.Phase, phaseID int) ([]Measurement, error) {
	measure := phaseID == 1
	pacer, rampLen, err := r.pacer(measure)
	if err != nil {
		return nil, err
	}
	st := r.status(th, size, name)
	limitNs, limitOps := phaseBounds(ph)
	st.Limit, st.LimitOps = time.Duration(limitNs), limitOps
	if st.Limit == 0 && st.LimitOps == 0 {
		st.Limit = rampLen
	}
	// The CPU clocks and device counters are read before the epoch an
	// open loop schedules from, so that a slow server answer delays no
	// operation.
	var cpu0 cpuMark
	var hw0 hwcounters.Counters
	var waits0 uint64
	var host0 results.HostSample
	if measure {
		host0 = r.readHost()
		hw0 = r.readCounters(th, size)
		cpu0 = r.readCPU(th, size, false)
		waits0, _ = creditWaits(ws)
	}
	recycle(ws)
	base := newEpochOn(r.cfg.clock)
	r.enough.Store(false)
	watch := newUntilWatch(ph, &r.enough)
	// A warmup records as measuring does, and what it records is dropped
	// with the phase: its until judges its seconds, and its histograms,
	// which at many workers and size classes take gigabytes, are
	// allocated there and only reset (recycle) for the measure phase,
	// whose first second would otherwise go on allocating them.
	coll := newCollector(len(ws), base.t.UnixMilli())
	coll.until = watch
	if measure {
		coll.hear, _ = r.cfg.Observer.(IntervalObserver)
	}
	if err := r.resetWorkers(ws, phaseID, coll); err != nil {
		return nil, err
	}
	var adapt *adaptiveSampler
	if measure {
		adapt = startAdaptive(ws, base, r.cfg.Observer)
	}
	end := r.observe(st, ws, base.t, pacer)
	var dur time.Duration
	var precise bool
	if r.replay != nil {
		dur, precise = r.driveReplay(ws, base, ph, measure)
		size = r.replay.meanSet(size)
	} else {
		dur, precise = r.drive(ws, base, pacer, ph)
	}
	timelines := adapt.stop(dur)
	ended := phaseEnd(ph, watch, dur, phaseOps(ws), r.stop.Load())
	if !measure {
		end()
		r.warmupEnd = ended
		return nil, r.replayErr()
	}
	cpu1 := r.readCPU(th, size, true)
	hw1 := r.readCounters(th, size)
	waits1, counted := creditWaits(ws)
	host1 := r.readHost()
	end()
	coll.end(base.t.Add(dur).UnixMilli())
	ms := merge(ws, coll, Measurement{Threshold: th, ValueSize: size, Distribution: r.cfg.SizesSpec, Trace: r.cfg.Trace, Start: base.t, Duration: dur,
		Load: r.cellLoad(pacer, precise), IssueDelay: issueDelay(ws)})
	r.attachCPU(ms, cpu0, cpu1, th, size)
	attachCounters(ms, hw0, hw1)
	attachHost(ms, host0, host1)
	attachCreditWaits(ms, waits0, waits1, counted)
	attachReceiveMemory(ms, r.receiveMemory(th))
	attachSizes(ms, r.cfg.Sizes, r.cfg.Trace != nil)
	attachAdaptive(ms, timelines)
	attachEnds(ms, r.warmupEnd, ended)
	attachChecks(ms, ws, pacer)
	if mo, ok := r.cfg.Observer.(MeasureObserver); ok {
		mo.Measured(ms)
	}
	return ms, errors.Join(coll.err, r.replayErr())
}

// pacer is the phase's open-loop pacer (nil in a closed loop) and, for a
// ramp, how long it lasts. A ramp paces the measure phase only; warmup runs
// at its first rate.
func (r *runner) pacer(measure bool) (Pacer, time.Duration, error) {
	l := &r.cfg.Load
	switch {
	case l.Mode != "open":
		return nil, 0, nil
	case l.Ramp != nil && measure:
		rp, err := NewRampPacer(l.Ramp.Rates(), time.Duration(l.Ramp.StepDuration))
		if err != nil {
			return nil, 0, err
		}
		return rp, rp.Duration(), nil
	case l.Ramp != nil:
		return ConstantPacer{Rate: l.Ramp.Start}, 0, nil
	}
	return ConstantPacer{Rate: l.Rate}, 0, nil
}

// resetWorkers readies every worker for a phase: counters cleared, its own
// random stream and key generator, and a recorder when the phase measures.
func (r *runner) resetWorkers(ws []*worker, phaseID int, coll *collector) error {
	for _, w := range ws {
		w.ops, w.errs = 0, 0
		w.pub.ops.Store(0)
		w.pub.errs.Store(0)
		w.rng = keygen.NewRand(r.cfg.Seed, stream(r.grid, phaseID, w.id))
		g, err := r.keyGen(w.id, w.workers)
		if err != nil {
			return err
		}
		w.keys = g
		w.rec = w.rec.next(coll, w.local, sampleCap(len(ws)), r.cfg.Sizes != nil || r.cfg.Trace != nil)
	}
	return nil
}

// recycle resets the histograms each worker's last phase recorded into,
// for its next phase to record into again, before that phase's clock
// starts: zeroing them takes time no phase may count.
func recycle(ws []*worker) {
	for _, w := range ws {
		w.rec.resetHists()
	}
}

// drive runs the workers through the phase and returns its wall time and
// whether one dispatcher paced them precisely.
func (r *runner) drive(ws []*worker, base epoch, pacer Pacer, ph workload.Phase) (time.Duration, bool) {
	W := len(ws)
	limitNs, ops := phaseBounds(ph)
	total := int64(-1)
	if ops > 0 {
		total = ops
	}
	var disp *dispatcher
	var dwg sync.WaitGroup
	if pacer != nil && r.cfg.Load.Pacing != PacingCoarse {
		wake := make([]chan struct{}, W)
		for i, w := range ws {
			wake[i] = w.wake
		}
		disp = newDispatcher(base, pacer, total, limitNs, wake, r.done, &r.stop)
		disp.first, disp.span = int64(r.cfg.Rank*W), int64(W*r.cfg.ranks())
		dwg.Go(disp.run)
	}
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() {
			if pacer != nil {
				w.runOpen(base, pacer, total, limitNs, disp)
			} else {
				w.runClosed(base, quota(ops, w.workers, w.id), limitNs)
			}
			if w.rec != nil {
				w.rec.finish()
			}
		})
	}
	wg.Wait()
	dur := base.since()
	if disp != nil {
		disp.end()
		dwg.Wait()
	}
	return dur, disp != nil
}

// quota is worker id's share of ops over W workers (-1: unbounded).
func quota(ops int64, W, id int) int64 {
	if ops <= 0 {
		return -1
	}
	q := ops / int64(W)
	if int64(id) < ops%int64(W) {
		q++
	}
	return q
}

// cellLoad is the load a measured cell ran under, as results.json says it.
func (r *runner) cellLoad(pacer Pacer, precise bool) results.CellLoad {
	l := &r.cfg.Load
	load := results.CellLoad{Mode: l.Mode, Connections: l.Connections, Depth: l.Depth}
	switch p := pacer.(type) {
	case *RampPacer:
		load.RampRatesOps, load.RampStepNs = p.Steps(), int64(p.step)
	case ConstantPacer:
		load.RateOps = p.Rate
	}
	if rp := r.cfg.Trace; rp != nil && rp.paced() {
		load.Mode = "open"
	}
	if load.Mode == "open" {
		load.Pacing = PacingCoarse
		if precise {
			load.Pacing = PacingPrecise
		}
	}
	return load
}

// issueDelay merges the workers' issue-delay histograms (nil in a closed
// loop).
func issueDelay(ws []*worker) *hdrhistogram.Histogram {
	var late *hdrhistogram.Histogram
	for _, w := range ws {
		if h := w.rec.late; used(h) {
			if late == nil {
				late = results.NewHistogram()
			}
			late.Merge(h)
		}
	}
	return late
}

// merge makes one Measurement per (op, protocol) any worker recorded,
// each a copy of proto with the workers' histograms and error counts
// merged and the collector's intervals.
func merge(ws []*worker, coll *collector, proto Measurement) []Measurement {
	var ms []Measurement
	for op := OpGet; op < numOps; op++ {
		for p := range Protocol(numProtos) {
			m := proto
			m.Op, m.Protocol = op, p
			for _, w := range ws {
				h := w.rec.total[op][p]
				if !used(h) {
					continue
				}
				if m.Hist == nil {
					m.Hist = results.NewHistogram()
				}
				m.Hist.Merge(h)
				for k, n := range w.rec.errs[op][p] {
					m.Errors[k] += n
				}
				m.Bytes += w.rec.bytes[op][p]
				if ph := w.rec.ph[op][p]; ph != nil {
					m.Phases.merge(ph)
				}
				if op == OpGet {
					m.RecordedMisses += w.rec.recordedMisses[p]
				}
				if c := w.rec.cls; c != nil {
					if m.Classes == nil {
						m.Classes = new(classSums)
					}
					m.Classes.add(c, op, p)
				}
			}
			if m.Hist == nil {
				continue
			}
			m.Count = m.Hist.TotalCount()
			m.Intervals = coll.intervals(op, p)
			ms = append(ms, m)
		}
	}
	return ms
}
