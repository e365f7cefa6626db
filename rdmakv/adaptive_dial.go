package rdmakv

import (
	"errors"

	"github.com/kvbench/kvbench/rdmakv/wire"
)

// thresholdRefusal is a HELLO refused for its threshold, with the
// server's max eager from the refusal.
type thresholdRefusal struct {
	error
	maxEager int
}

func (e *thresholdRefusal) Unwrap() error { return e.error }

// refusedThreshold is err, the refusal of HELLO reply f, carrying the
// server's max eager when f says it.
func refusedThreshold(err error, f wire.Frame) error {
	l, derr := wire.DecodeLimits(f.Value)
	if derr != nil {
		return err
	}
	return &thresholdRefusal{err, int(l.MaxEager)}
}

// lowerAdaptiveMax says whether Dial should try again after err: when
// the adaptive policy's largest threshold was defaulted and the server
// refused it for a lower max eager, the policy is made to fit that one.
// The receive buffers are sized before HELLO, so it takes a new
// connection.
func (o *options) lowerAdaptiveMax(err error) bool {
	a := o.adaptive
	var r *thresholdRefusal
	if a == nil || !a.defaulted || !errors.As(err, &r) || r.maxEager < 1 || r.maxEager >= o.threshold {
		return false
	}
	o.threshold, a.cfg.MaxThreshold = r.maxEager, r.maxEager
	a.start = min(a.start, r.maxEager)
	return true
}

// adaptivePolicy is the policy of a client whose HELLO asked for
// threshold, or nil without WithAdaptiveThreshold.
func (o *options) adaptivePolicy(threshold int) *adaptivePolicy {
	if o.adaptive == nil {
		return nil
	}
	return newAdaptivePolicy(o.adaptive.cfg, threshold, o.adaptive.start, nanotime)
}
