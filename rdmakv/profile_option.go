package rdmakv

import (
	"errors"
	"fmt"
)

// WithProfile applies a profile's thresholds: sets go eager by its set
// threshold and gets by its get threshold at the client's load,
// connections (the application's connections to this server, this one
// among them) x the client's depth (WithDepth) requests in flight. The
// thresholds are looked up once, at Dial. The client asks the server at
// HELLO for the larger of the two, which sizes its receive buffers, and
// Dial fails with ErrThreshold when that exceeds the server's max eager.
// It excludes WithEagerThreshold.
func WithProfile(p *Profile, connections int) Option {
	return func(o *options) { o.profile = &profileOption{p: p, connections: connections} }
}

// profileOption is WithProfile's arguments.
type profileOption struct {
	p           *Profile
	connections int
}

// resolveThresholds sets each op's threshold, from the profile at the
// client's load when there is one, and threshold to the larger.
func (o *options) resolveThresholds() {
	o.getThreshold, o.setThreshold = o.threshold, o.threshold
	if o.profile == nil || o.profile.p == nil {
		return
	}
	o.getThreshold, o.setThreshold = o.profile.p.Thresholds(o.profile.connections * o.depth)
	o.threshold = max(o.getThreshold, o.setThreshold)
}

// problems are what is wrong with the profile option, given whether
// WithEagerThreshold was given too.
func (po *profileOption) problems(thresholdSet bool) []error {
	if po == nil {
		return nil
	}
	var errs []error
	if thresholdSet {
		errs = append(errs, errors.New("WithEagerThreshold and WithProfile: give one (the profile sets the thresholds)"))
	}
	if po.connections < 1 {
		errs = append(errs, fmt.Errorf("WithProfile: connections %d: want at least 1", po.connections))
	}
	if po.p == nil {
		return append(errs, errors.New("WithProfile: no profile"))
	}
	if err := po.p.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("WithProfile: %w", err))
	}
	return errs
}

// thresholdName names the client's thresholds in errors: its threshold,
// or its profile's and what it chose.
func (o *options) thresholdName() string {
	if o.profile == nil || o.profile.p == nil {
		return fmt.Sprintf("threshold %d", o.threshold)
	}
	return fmt.Sprintf("profile %s (get %d, set %d at %d in flight)",
		o.profile.p.label(), o.getThreshold, o.setThreshold, o.profile.connections*o.depth)
}
