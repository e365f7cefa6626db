package results

import (
	"fmt"
	"slices"
)

// AdaptiveTimeline (a cell of Policy adaptive) is what the clients'
// adaptive policy chose for the cell's op over its measure phase,
// interval by interval: the threshold its choices amounted to and the
// requests each size class carried by each protocol. Interval i covers
// the interval log's interval i, [i, i+1) × IntervalNs from the phase's
// start, the last cut short by the phase's end.
type AdaptiveTimeline struct {
	IntervalNs int64 `json:"interval_ns"`
	// StartThreshold is the op's threshold as the phase began and
	// Thresholds[i] as interval i ended, in bytes: the lower bound of the
	// op's smallest class chosen rendezvous (rdmakv.ChosenThreshold),
	// over several connections the median of theirs (the lower of the
	// middle two), over a merged run's ranks the median of the ranks'.
	StartThreshold int64   `json:"start_threshold"`
	Thresholds     []int64 `json:"thresholds"`
	// Classes are the op's size classes that carried a request over the
	// phase, smallest first.
	Classes []AdaptiveClass `json:"classes"`
}

// AdaptiveClass is one size class of an AdaptiveTimeline.
type AdaptiveClass struct {
	// Lower and Upper bound key plus value: Lower to Upper-1 bytes.
	// Upper is 0 for the op's last class, the sizes eager may not carry,
	// which always go rendezvous.
	Lower int64 `json:"lower"`
	Upper int64 `json:"upper,omitempty"`
	// Eager and Rendezvous are the requests that succeeded by each
	// protocol, per interval, every connection's.
	Eager      []uint64 `json:"eager"`
	Rendezvous []uint64 `json:"rendezvous"`
	// Switches counts the changes of the class's choice over the phase,
	// every connection's.
	Switches uint64 `json:"switches"`
}

// Changes counts the intervals at whose end the threshold differed from
// the one before (StartThreshold for the first).
func (t *AdaptiveTimeline) Changes() int {
	n, prev := 0, t.StartThreshold
	for _, th := range t.Thresholds {
		if th != prev {
			n++
		}
		prev = th
	}
	return n
}

// EndThreshold is the threshold as the phase ended.
func (t *AdaptiveTimeline) EndThreshold() int64 {
	if len(t.Thresholds) == 0 {
		return t.StartThreshold
	}
	return t.Thresholds[len(t.Thresholds)-1]
}

// Clone is a deep copy of t (nil for nil).
func (t *AdaptiveTimeline) Clone() *AdaptiveTimeline {
	if t == nil {
		return nil
	}
	c := *t
	c.Thresholds = slices.Clone(t.Thresholds)
	c.Classes = make([]AdaptiveClass, len(t.Classes))
	for i, k := range t.Classes {
		k.Eager, k.Rendezvous = slices.Clone(k.Eager), slices.Clone(k.Rendezvous)
		c.Classes[i] = k
	}
	return &c
}

// check reports a timeline no reader could make sense of: a class
// whose counts do not cover the thresholds' intervals.
func (t *AdaptiveTimeline) check() error {
	n := len(t.Thresholds)
	for _, k := range t.Classes {
		if len(k.Eager) != n || len(k.Rendezvous) != n {
			return fmt.Errorf("adaptive class %d: %d eager and %d rendezvous counts for %d intervals", k.Lower, len(k.Eager), len(k.Rendezvous), n)
		}
	}
	return nil
}

// LowerMedian is the median of v, the lower of the middle two for an even
// count, so that it is a threshold one of them had; it sorts v, which
// must not be empty.
func LowerMedian(v []int64) int64 {
	slices.Sort(v)
	return v[(len(v)-1)/2]
}
