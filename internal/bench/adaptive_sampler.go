package bench

import (
	"sync"
	"time"

	"github.com/kvbench/kvbench/internal/results"
)

// adaptiveSampler reads a measure phase's adaptive connections as each of
// its intervals closes, on the phase's clock, in a goroutine of its own:
// the workers' path never touches the policies' state.
type adaptiveSampler struct {
	conns []AdaptiveReporter
	tl    *adaptiveTimelines
	hear  AdaptiveObserver // nil: none
	n     int64            // intervals closed
	quit  chan struct{}
	wg    sync.WaitGroup
}

// startAdaptive samples ws's adaptive connections from base on, telling
// obs if it is an AdaptiveObserver; nil when none has a policy (a fixed
// threshold, another store).
func startAdaptive(ws []*worker, base epoch, obs Observer) *adaptiveSampler {
	conns := adaptiveConns(ws)
	if len(conns) == 0 {
		return nil
	}
	tl, ok := newAdaptiveTimelines(sampleAdaptive(conns))
	if !ok {
		return nil
	}
	s := &adaptiveSampler{conns: conns, tl: tl, quit: make(chan struct{})}
	s.hear, _ = obs.(AdaptiveObserver)
	s.wg.Go(func() { s.run(base) })
	return s
}

// run closes interval k at base + (k+1) intervals, as the interval log's
// intervals are cut, until stopped.
func (s *adaptiveSampler) run(base epoch) {
	for k := int64(1); ; k++ {
		t := time.NewTimer(time.Duration(base.ns + k*intervalNs - base.clock()))
		select {
		case <-s.quit:
			t.Stop()
			return
		case <-t.C:
		}
		s.close()
	}
}

// close closes an interval now and tells the observer.
func (s *adaptiveSampler) close() {
	s.tl.add(sampleAdaptive(s.conns))
	s.n++
	if s.hear == nil {
		return
	}
	for op, tl := range s.tl.ops {
		if tl != nil {
			s.hear.Adaptive(Op(op), tl)
		}
	}
}

// stop ends the sampling at the phase's end, dur after its start, closing
// the last interval, cut short by the end, and returns the ops'
// timelines (none for a nil sampler).
func (s *adaptiveSampler) stop(dur time.Duration) [numOps]*results.AdaptiveTimeline {
	if s == nil {
		return [numOps]*results.AdaptiveTimeline{}
	}
	close(s.quit)
	s.wg.Wait()
	if s.n < max((int64(dur)+intervalNs-1)/intervalNs, 1) {
		s.close()
	}
	return s.tl.done()
}
