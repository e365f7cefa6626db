package rdmakv

import (
	"errors"
	"fmt"
	"sync"

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
// threshold: its own, or its group's; nil without WithAdaptiveThreshold.
func (o *options) adaptivePolicy(threshold int) (*adaptivePolicy, error) {
	a := o.adaptive
	switch {
	case a == nil:
		return nil, nil
	case a.cfg.Group != nil:
		return a.cfg.Group.policy(a.cfg, threshold, a.start)
	}
	return newAdaptivePolicy(a.cfg, threshold, a.start, nanotime), nil
}

// AdaptiveGroup is one adaptive policy that several clients share
// (AdaptiveConfig.Group). A process's connections to one server see the
// same network and server, and together send N times the requests one of
// them does: sharing, they learn N times as fast and apply what they
// learn alike, where each alone would explore and settle on its own. The
// first client dialled with it makes the policy; the others must ask for
// the same settings and find the same max eager, or Dial fails.
type AdaptiveGroup struct {
	mu       sync.Mutex
	p        *adaptivePolicy
	cfg      AdaptiveConfig // as resolved, without Group
	maxEager int
}

// NewAdaptiveGroup makes a group for AdaptiveConfig.Group.
func NewAdaptiveGroup() *AdaptiveGroup { return &AdaptiveGroup{} }

// policy is the group's policy, made for cfg, maxEager and start by the
// first client to ask.
func (g *AdaptiveGroup) policy(cfg AdaptiveConfig, maxEager, start int) (*adaptivePolicy, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	cfg.Group = nil
	if g.p == nil {
		g.p, g.cfg, g.maxEager = newAdaptivePolicy(cfg, maxEager, start, nanotime), cfg, maxEager
		return g.p, nil
	}
	if cfg != g.cfg || maxEager != g.maxEager {
		return nil, fmt.Errorf("%w: an adaptive group's clients share one policy: this one asks for %+v up to %d bytes, the group's is %+v up to %d",
			ErrThreshold, cfg, maxEager, g.cfg, g.maxEager)
	}
	return g.p, nil
}
