package bench

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Event says what a Status reports.
type Event uint8

// Events, in the order a phase produces them.
const (
	PhaseStart Event = iota
	PhaseTick
	PhaseEnd
)

// Status is a progress snapshot.
type Status struct {
	Event Event
	// Cell counts from 0 up to Cells-1 in run order.
	Cell, Cells          int
	Threshold, ValueSize int
	// Distribution is the law the values' sizes are drawn from
	// (Config.SizesSpec), ValueSize then its mean; "" for a fixed size.
	Distribution string
	// Phase is "preload", "warmup" or "measure".
	Phase   string
	Elapsed time.Duration
	// Limit and LimitOps bound the phase (0: not by that measure).
	Limit    time.Duration
	LimitOps int64
	// Ops and Errors are completed operations and failed ones so far;
	// not_found is an answer, not a failure, and is not counted in Errors.
	Ops, Errors int64
	// Rate is the open loop's target rate now, in operations per second:
	// a ramp's current step (0: closed loop, or preload).
	Rate float64
}

// Observer hears a run's progress. Observe is called from one goroutine at
// a time, off the workers' path.
type Observer interface {
	Observe(Status)
}

// MeasureObserver is an Observer that also hears each measure phase's
// Measurements once they are merged, after the phase's PhaseEnd: what the
// run will record for the cell, for a consumer (metrics) that wants the
// counts and latencies without touching the workers' path.
type MeasureObserver interface {
	Observer
	Measured([]Measurement)
}

// IntervalObserver is an Observer that also hears each measure phase's
// interval histograms as the collector merges them, about once a second,
// so that it can show the phase's latencies while it runs. Interval is
// called from a worker's goroutine as it hands over a second (one call at
// a time, but beside Observe), so it must be brief and must not keep h:
// one interval of (op, p), in nanoseconds, reused once Interval returns.
// Failures are not in intervals: Measured still brings them.
type IntervalObserver interface {
	Observer
	Interval(op Op, p Protocol, h *hdrhistogram.Histogram)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(Status)

// Observe implements Observer.
func (f ObserverFunc) Observe(s Status) { f(s) }
