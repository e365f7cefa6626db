package tune

import (
	"fmt"
	"math"

	"github.com/kvbench/kvbench/internal/units"
)

// Search settings. The search brackets the capacity by doubling or
// halving from the closed-loop throughput, then bisects (in log rate)
// until the highest passing rate is within SearchTolerance of the lowest
// failing one.
const (
	SearchTolerance = 0.05
	// maxRise bounds the doublings above the closed-loop throughput: a
	// capacity beyond that is reported as at least the last passing rate.
	maxRise = 16
	// maxFall bounds the halvings below it.
	maxFall = 64
	// keepUp is the share of the asked rate an open loop must achieve to
	// pass: below it the load generator could not issue the schedule.
	keepUp = 0.9
	// maxStretch bounds how much longer than the measure phase one search
	// measurement may run to collect the operations a percentile needs.
	maxStretch = 8
)

// Step is one measurement of a capacity search.
type Step struct {
	// Rate is the open-loop rate asked for (0: the closed loop that
	// started the search, which is not judged).
	Rate     float64 `json:"rate_ops"`
	Achieved float64 `json:"achieved_ops"`
	// Latency is the goal's percentile, in ns.
	Latency float64 `json:"latency_ns"`
	Count   int64   `json:"count"`
	Pass    bool    `json:"pass"`
}

// search finds the highest open-loop rate meeting a latency goal for one
// (load, op, size, protocol). It is a state machine driven by the runner,
// so that the two protocols' searches can run step by step side by side.
type search struct {
	slo   *SLO
	floor float64 // the lowest rate measured
	ceil  float64 // the highest
	// lo is the highest passing rate, hi the lowest failing one (0: none
	// yet).
	lo, hi float64
	next   float64
	steps  []Step
	done   bool
	// note says why the search ended short of the tolerance.
	note string
}

// newSearch starts a search from the closed-loop measurement at the same
// load, whose throughput bounds the open-loop capacity from above in all
// but noise. measure is the measure phase's length in seconds (0 when it
// is counted in operations).
func newSearch(slo *SLO, closed Sample, measure float64) *search {
	x := closed.OpsPerSec
	s := &search{slo: slo, next: x, ceil: x * maxRise, floor: x / maxFall}
	if measure > 0 {
		s.floor = math.Max(s.floor, float64(slo.MinOps())/(maxStretch*measure))
	}
	s.steps = append(s.steps, Step{Achieved: x, Latency: slo.latency(closed), Count: closed.Count})
	if x <= 0 || s.floor > x {
		s.done = true
		s.note = fmt.Sprintf("not searched: a %s needs %d operations per measurement, more than %d x the measure phase holds at the closed-loop rate of %s; lengthen the measure phase",
			slo.String(), slo.MinOps(), maxStretch, units.Rate(x)+" ops/s")
	}
	return s
}

// record takes the measurement at s.next and picks the next rate.
func (s *search) record(sm Sample) {
	r := s.next
	lat := s.slo.latency(sm)
	pass := lat <= s.slo.Goal && sm.OpsPerSec >= keepUp*r
	s.steps = append(s.steps, Step{Rate: r, Achieved: sm.OpsPerSec, Latency: lat, Count: sm.Count, Pass: pass})
	if pass {
		s.lo = r
	} else {
		s.hi = r
	}
	switch {
	case s.lo > 0 && s.hi > 0:
		if s.hi/s.lo <= 1+SearchTolerance {
			s.done = true
			return
		}
		s.next = math.Sqrt(s.lo * s.hi)
	case s.lo > 0 && 2*r > s.ceil:
		s.done = true
		s.note = fmt.Sprintf("the goal holds up to %s, %dx the closed-loop rate: capacity is at least that", units.Rate(r)+" ops/s", maxRise)
	case s.lo > 0:
		s.next = 2 * r
	case r/2 < s.floor:
		s.done = true
		s.note = fmt.Sprintf("the goal fails down to %s, the lowest rate measured", units.Rate(r)+" ops/s")
	default:
		s.next = r / 2
	}
}

// capacity is the search's answer: the highest passing rate (0: none).
func (s *search) capacity() float64 { return s.lo }

// sample is the search as a Sample: its capacity and steps, with the
// latency figures of the measurement at the capacity (or the closed loop
// when nothing passed).
func (s *search) sample(atCapacity Sample) Sample {
	out := atCapacity
	out.Capacity, out.Search, out.SearchNote = s.capacity(), s.steps, s.note
	return out
}
