package bench

import (
	"io"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/internal/workload"
	"github.com/kvbench/kvbench/rdmakv"
)

// replayer is one cell's replay: its window read across the cell's
// warmup and measure phases, each phase taking up where the last left.
type replayer struct {
	rp      *Replay
	src     *source
	keySize int
	// pend is the request the last phase read but left to the next (its
	// time was past the phase's end), pendKey its key.
	pend    *trace.Record
	pendKey []byte
	// err is the malformed line or failed read that ended the replay.
	err error
	// sets and setBytes count the sets the measure phase replayed, by
	// their recorded sizes.
	sets, setBytes int64
}

func (r *runner) newReplayer() (*replayer, error) {
	src, err := openSource(r.cfg.Trace, r.cfg.Trace.Loop)
	if err != nil {
		return nil, err
	}
	return &replayer{rp: r.cfg.Trace, src: src, keySize: r.cfg.Keys.Size}, nil
}

func (p *replayer) close() { p.src.close() }

// next reads the next request into rec: the one the last phase left,
// else the window's next.
func (p *replayer) next(rec *trace.Record) error {
	if p.pend != nil {
		*rec, p.pend = *p.pend, nil
		return nil
	}
	return p.src.next(rec)
}

// hold keeps rec for the next phase.
func (p *replayer) hold(rec *trace.Record) {
	p.pendKey = append(p.pendKey[:0], rec.Key...)
	kept := *rec
	kept.Key = p.pendKey
	p.pend = &kept
}

// feed reads the phase's requests into lanes, the i-th connection's
// lane taking the requests of clients i, i+len(lanes), ...: at most ops
// of them (ops <= 0: no bound), and when the replay keeps the recorded
// times, those due before limitNs (<= 0: no bound). Times count from the
// phase's first request. It closes the lanes when done, or returns at
// once when quit closes.
func (p *replayer) feed(lanes []*lane, ops, limitNs int64, measure bool, quit <-chan struct{}) {
	defer func() {
		for _, l := range lanes {
			close(l.full)
		}
	}()
	origin := int64(-1)
	var rec trace.Record
	for n := int64(0); ops <= 0 || n < ops; n++ {
		if err := p.next(&rec); err != nil {
			if err != io.EOF {
				p.err = err
			}
			break
		}
		if origin < 0 {
			origin = rec.Time
		}
		off := p.rp.offset(rec.Time - origin)
		if limitNs > 0 && p.rp.paced() && off >= limitNs {
			p.hold(&rec)
			break
		}
		if measure && rec.Op == rdmakv.OpSet {
			p.sets++
			p.setBytes += int64(rec.ValueSize)
		}
		if !lanes[rec.Client%uint32(len(lanes))].put(&rec, off, p.keySize, quit) {
			return
		}
	}
	for _, l := range lanes {
		if !l.flush(quit) {
			return
		}
	}
}

// meanSet is the mean recorded size of the measured sets, rounded, at
// least 1: the value size results give the cell; or else if there were
// none.
func (p *replayer) meanSet(orElse int) int { return meanSize(p.sets, p.setBytes, orElse) }

// meanSize is the mean of n sizes summing to bytes, rounded, at least 1;
// orElse when there are none.
func meanSize(n, bytes int64, orElse int) int {
	if n == 0 {
		return orElse
	}
	return max(1, int(math.Round(float64(bytes)/float64(n))))
}

// driveReplay runs the workers through a phase of the cell's replay and
// returns its wall time and whether a dispatcher paced it precisely. ph
// bounds it as a phase bounds any (by ops, or by time); the window's end
// (without loop) ends it too.
func (r *runner) driveReplay(ws []*worker, base epoch, ph workload.Phase, measure bool) (time.Duration, bool) {
	p, rp := r.replay, r.cfg.Trace
	lanes := newLanes(r.cfg.Load.Connections, r.cfg.Load.Depth, min(r.cfg.Keys.Size, 64))
	limitNs := int64(ph.Duration)
	end, quit := make(chan struct{}), make(chan struct{})
	if limitNs > 0 {
		t := time.AfterFunc(time.Duration(limitNs), func() { close(end) })
		defer t.Stop()
	}
	var fwg, dwg, wg sync.WaitGroup
	fwg.Go(func() { p.feed(lanes, ph.Ops, limitNs, measure, quit) })
	var disp *replayDispatcher
	if rp.paced() && r.cfg.Load.Pacing != PacingCoarse {
		disp = newReplayDispatcher(base, ws, r.done, &r.stop)
		dwg.Go(disp.run)
	}
	// The phase ends with its last request, before the recorders' last
	// intervals are encoded: a replay's length is the trace's to keep.
	ends := make([]time.Duration, len(ws))
	for i, w := range ws {
		wg.Go(func() {
			w.runReplay(base, lanes[i/r.cfg.Load.Depth], rp.paced(), disp, limitNs, end)
			ends[i] = base.since()
			if w.rec != nil {
				w.rec.finish()
			}
		})
	}
	wg.Wait()
	if disp != nil {
		disp.end()
		dwg.Wait()
	}
	close(quit)
	fwg.Wait()
	return slices.Max(ends), disp != nil
}
