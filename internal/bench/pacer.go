package bench

import (
	"fmt"
	"math"
	"time"
)

// Pacer is an open-loop schedule: Offset gives the intended start of the
// n-th operation (from 0) relative to the phase start, and false once the
// schedule has ended. Unlike a wait-based pacer, it answers for any n, so
// each worker can compute its own operations' intended starts without
// coordination, and an operation issued late is still measured from the
// time it should have started.
type Pacer interface {
	Offset(n int64) (time.Duration, bool)
}

// PacerFunc adapts a function to Pacer.
type PacerFunc func(n int64) (time.Duration, bool)

// Offset implements Pacer.
func (f PacerFunc) Offset(n int64) (time.Duration, bool) { return f(n) }

// ConstantPacer schedules Rate operations per second, evenly spaced, without
// end (the phase bounds it).
type ConstantPacer struct {
	Rate float64
}

// Offset implements Pacer.
func (p ConstantPacer) Offset(n int64) (time.Duration, bool) {
	if p.Rate <= 0 {
		return 0, false
	}
	return time.Duration(float64(n) * 1e9 / p.Rate), true
}

// RampPacer runs a list of rates, each for one step; the schedule ends
// after the last step. workload.Ramp.Rates gives the list for a workload.
type RampPacer struct {
	rates []float64
	cum   []float64 // operations scheduled before step i
	step  time.Duration
}

// NewRampPacer builds a ramp over rates (ops/s, none negative), each lasting
// stepDuration.
func NewRampPacer(rates []float64, stepDuration time.Duration) (*RampPacer, error) {
	if len(rates) == 0 {
		return nil, fmt.Errorf("ramp: no rates")
	}
	if stepDuration <= 0 {
		return nil, fmt.Errorf("ramp: step_duration %v must be positive", stepDuration)
	}
	p := &RampPacer{rates: rates, step: stepDuration, cum: make([]float64, len(rates)+1)}
	for i, r := range rates {
		if r < 0 || math.IsNaN(r) || math.IsInf(r, 0) {
			return nil, fmt.Errorf("ramp: rate %g is not a finite non-negative number", r)
		}
		p.cum[i+1] = p.cum[i] + r*stepDuration.Seconds()
	}
	return p, nil
}

// Steps returns the rate of each step.
func (p *RampPacer) Steps() []float64 { return p.rates }

// Duration is the whole ramp.
func (p *RampPacer) Duration() time.Duration { return time.Duration(len(p.rates)) * p.step }

// RateAt is the rate of the step running d into the ramp; past the end,
// the last step's.
func (p *RampPacer) RateAt(d time.Duration) float64 {
	i := min(max(int(d/p.step), 0), len(p.rates)-1)
	return p.rates[i]
}

// targetRate is what pacer schedules d into its phase, in operations per
// second; 0 without a pacer (a closed loop).
func targetRate(pacer Pacer, d time.Duration) float64 {
	switch p := pacer.(type) {
	case ConstantPacer:
		return p.Rate
	case *RampPacer:
		return p.RateAt(d)
	}
	return 0
}

// Offset implements Pacer.
func (p *RampPacer) Offset(n int64) (time.Duration, bool) {
	x := float64(n)
	for i, r := range p.rates {
		if x < p.cum[i+1] && r > 0 {
			within := (x - p.cum[i]) / r
			return time.Duration(i)*p.step + time.Duration(within*1e9), true
		}
	}
	return 0, false
}
