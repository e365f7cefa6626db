package bench

import (
	"math"
	"slices"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/rdmakv"
)

// AdaptiveReporter is a Conn whose client chooses each request's protocol
// itself (store.AdaptiveReporter).
type AdaptiveReporter = store.AdaptiveReporter

// AdaptiveObserver is an Observer that also hears an adaptive cell's
// timelines (results.AdaptiveTimeline) as its measure phase runs, one
// op's at a time each time an interval closes: the last threshold and
// each class's last counts are the interval's. It is called from a
// sampler goroutine (beside Observe, one call at a time) and must not
// keep t, which grows once it returns.
type AdaptiveObserver interface {
	Observer
	Adaptive(op Op, t *results.AdaptiveTimeline)
}

// adaptiveConns are the phase's connections that report an adaptive
// policy, each once however many workers share it.
func adaptiveConns(ws []*worker) []AdaptiveReporter {
	var out []AdaptiveReporter
	for _, w := range ws {
		if a, ok := w.t.(AdaptiveReporter); ok && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// adaptiveSample is the connections' policies at one instant: per op, the
// threshold (the median of the connections') and the classes, their
// counts summed, ascending.
type adaptiveSample struct {
	threshold [numOps]int64
	classes   [numOps][]rdmakv.AdaptiveClass
}

// sampleAdaptive reads every connection's policy once.
func sampleAdaptive(conns []AdaptiveReporter) adaptiveSample {
	var s adaptiveSample
	var ths [numOps][]int64
	for _, c := range conns {
		st := c.AdaptiveState()
		for _, op := range []Op{OpSet, OpGet} {
			if th, ok := rdmakv.ChosenThreshold(st, op); ok {
				ths[op] = append(ths[op], int64(th))
			}
		}
		for _, k := range st {
			s.classes[k.Op] = addClass(s.classes[k.Op], k)
		}
	}
	for op, t := range ths {
		if len(t) > 0 {
			s.threshold[op] = results.LowerMedian(t)
		}
	}
	return s
}

// addClass adds k's counts to its class in cls, kept ascending.
func addClass(cls []rdmakv.AdaptiveClass, k rdmakv.AdaptiveClass) []rdmakv.AdaptiveClass {
	i, found := slices.BinarySearchFunc(cls, k.Lower, func(c rdmakv.AdaptiveClass, lower int) int { return c.Lower - lower })
	if !found {
		return slices.Insert(cls, i, k)
	}
	c := &cls[i]
	c.EagerRequests += k.EagerRequests
	c.RendezvousRequests += k.RendezvousRequests
	c.Switches += k.Switches
	return cls
}

// adaptiveTimelines grows each op's timeline by the intervals between
// samples.
type adaptiveTimelines struct {
	prev adaptiveSample
	ops  [numOps]*results.AdaptiveTimeline
}

// newAdaptiveTimelines starts a timeline for each op that start has
// classes of; ok is false when it has none.
func newAdaptiveTimelines(start adaptiveSample) (t *adaptiveTimelines, ok bool) {
	t = &adaptiveTimelines{prev: start}
	for op, cls := range start.classes {
		if len(cls) == 0 {
			continue
		}
		tl := &results.AdaptiveTimeline{IntervalNs: intervalNs, StartThreshold: start.threshold[op]}
		for _, k := range cls {
			up := int64(k.Upper)
			if k.Upper == math.MaxInt {
				up = 0
			}
			tl.Classes = append(tl.Classes, results.AdaptiveClass{Lower: int64(k.Lower), Upper: up})
		}
		t.ops[op], ok = tl, true
	}
	return t, ok
}

// add closes an interval at sample s.
func (t *adaptiveTimelines) add(s adaptiveSample) {
	for op, tl := range t.ops {
		if tl == nil {
			continue
		}
		tl.Thresholds = append(tl.Thresholds, s.threshold[op])
		for i := range tl.Classes {
			k := &tl.Classes[i]
			now, was := classAt(s.classes[op], k.Lower), classAt(t.prev.classes[op], k.Lower)
			k.Eager = append(k.Eager, now.EagerRequests-was.EagerRequests)
			k.Rendezvous = append(k.Rendezvous, now.RendezvousRequests-was.RendezvousRequests)
			k.Switches += now.Switches - was.Switches
		}
	}
	t.prev = s
}

// classAt is the class of cls starting at lower (zero counts if none).
func classAt(cls []rdmakv.AdaptiveClass, lower int64) rdmakv.AdaptiveClass {
	i, found := slices.BinarySearchFunc(cls, int(lower), func(c rdmakv.AdaptiveClass, l int) int { return c.Lower - l })
	if !found {
		return rdmakv.AdaptiveClass{}
	}
	return cls[i]
}

// done drops the classes that carried no request and returns the ops'
// timelines.
func (t *adaptiveTimelines) done() [numOps]*results.AdaptiveTimeline {
	for _, tl := range t.ops {
		if tl != nil {
			tl.Classes = slices.DeleteFunc(tl.Classes, func(k results.AdaptiveClass) bool {
				return !slices.ContainsFunc(k.Eager, nonzero) && !slices.ContainsFunc(k.Rendezvous, nonzero)
			})
		}
	}
	return t.ops
}

func nonzero(n uint64) bool { return n != 0 }

// attachAdaptive gives each Measurement its op's timeline (shared;
// Cell copies it).
func attachAdaptive(ms []Measurement, ops [numOps]*results.AdaptiveTimeline) {
	for i := range ms {
		ms[i].Adaptive = ops[ms[i].Op]
	}
}
