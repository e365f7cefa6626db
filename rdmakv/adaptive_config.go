package rdmakv

import (
	"cmp"
	"errors"
	"fmt"
	"time"
)

// AdaptiveConfig tunes WithAdaptiveThreshold. Zero fields take the
// defaults below.
type AdaptiveConfig struct {
	// MaxThreshold is the largest eager threshold the policy may use:
	// Dial asks the server for it in HELLO, and the client's receive
	// buffers are sized for it before the server's limit is known. Zero
	// asks for DefaultMaxEager and, when the server's max eager is lower,
	// dials again at the server's; a value above the server's max eager
	// fails Dial with ErrThreshold, as WithEagerThreshold does.
	MaxThreshold int
	// Explore is the share of requests sent by the protocol the policy
	// did not choose, so that both stay measured (default 0.02).
	Explore float64
	// Window is how long a latency sample counts (default 2s): a changed
	// load or server is followed within about Window plus Dwell.
	Window time.Duration
	// Dwell is the least time between two switches of a class (default
	// 1s).
	Dwell time.Duration
	// Margin is how much lower, as a share, the other protocol's median
	// must be for a class to switch (default 0.10); BackMargin (default
	// 0.25) replaces it for a switch that undoes the class's last one
	// within adaptiveBackSpan windows of it.
	Margin, BackMargin float64
	// Samples is how many latencies are kept per class and protocol,
	// rounded up to a power of two (default 128).
	Samples int
	// Group, when set, has every client dialled with it share one policy
	// (NewAdaptiveGroup): the connections of a process learn together.
	// Nil: each client learns alone.
	Group *AdaptiveGroup
}

// Adaptive defaults.
const (
	DefaultAdaptiveExplore    = 0.02
	DefaultAdaptiveWindow     = 2 * time.Second
	DefaultAdaptiveDwell      = time.Second
	DefaultAdaptiveMargin     = 0.10
	DefaultAdaptiveBackMargin = 0.25
	DefaultAdaptiveSamples    = 128
)

// WithAdaptiveThreshold has the client choose eager or rendezvous per
// operation and power-of-two size class (key plus value) from latencies it
// measures, instead of one fixed threshold; WithEagerThreshold then says
// where it starts (at most MaxThreshold). See docs/DESIGN.md, "Adaptive
// threshold", for the rule and its limits, and Client.AdaptiveState for
// what it has learnt.
func WithAdaptiveThreshold(cfg AdaptiveConfig) Option {
	return func(o *options) { o.adaptive = &adaptiveOptions{cfg: cfg} }
}

// adaptiveOptions is the policy's configuration as Dial resolves it.
type adaptiveOptions struct {
	cfg AdaptiveConfig
	// start is the threshold the policy starts from; the options'
	// threshold becomes cfg.MaxThreshold, what HELLO asks for.
	start int
	// defaulted: MaxThreshold was not given, so a server with a lower
	// max eager is dialled again at its own.
	defaulted bool
}

func (c AdaptiveConfig) withDefaults() AdaptiveConfig {
	if c.Explore == 0 {
		c.Explore = DefaultAdaptiveExplore
	}
	if c.Margin == 0 {
		c.Margin = DefaultAdaptiveMargin
	}
	if c.BackMargin == 0 {
		c.BackMargin = max(DefaultAdaptiveBackMargin, c.Margin)
	}
	c.Window = cmp.Or(c.Window, DefaultAdaptiveWindow)
	c.Dwell = cmp.Or(c.Dwell, DefaultAdaptiveDwell)
	c.Samples = cmp.Or(c.Samples, DefaultAdaptiveSamples)
	c.MaxThreshold = cmp.Or(c.MaxThreshold, DefaultMaxEager)
	return c
}

// Validate returns every problem with c's fields, joined, each naming
// its field; nil if there is none. Dial calls it.
func (c AdaptiveConfig) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("adaptive threshold: "+format, args...))
	}
	if c.MaxThreshold < 0 || c.MaxThreshold > MaxEagerLimit {
		bad("%w: max threshold %d must be between 0 and %d", ErrThreshold, c.MaxThreshold, MaxEagerLimit)
	}
	if c.Explore < 0 || c.Explore > 0.5 {
		bad("explore %v must be between 0 and 0.5", c.Explore)
	}
	if c.Window < 0 {
		bad("window %v must not be negative", c.Window)
	} else if c.Window > 0 && c.Window < time.Millisecond {
		bad("window %v is below 1ms", c.Window)
	}
	if c.Dwell < 0 {
		bad("dwell %v must not be negative", c.Dwell)
	}
	if c.Margin < 0 || c.Margin >= 1 {
		bad("margin %v must be at least 0 and below 1", c.Margin)
	}
	if c.BackMargin < 0 || c.BackMargin >= 1 {
		bad("back margin %v must be at least 0 and below 1", c.BackMargin)
	}
	if c.Samples < 0 || c.Samples > maxAdaptiveSamples {
		bad("samples %d must be between 0 and %d", c.Samples, maxAdaptiveSamples)
	}
	return errors.Join(errs...)
}

// validateAdaptive checks the adaptive configuration, if any.
func (o *options) validateAdaptive() error {
	if o.adaptive == nil {
		return nil
	}
	if o.profile != nil {
		return errors.New("WithProfile and WithAdaptiveThreshold: give one (each chooses the protocols)")
	}
	return o.adaptive.cfg.Validate()
}

// resolveAdaptive fills in the adaptive defaults and makes the threshold
// HELLO asks for the policy's largest, keeping the one given as where the
// policy starts. Dial and ClientTransportConfig call it once.
func (o *options) resolveAdaptive() {
	a := o.adaptive
	if a == nil {
		return
	}
	a.defaulted = a.cfg.MaxThreshold == 0
	a.cfg = a.cfg.withDefaults()
	a.start = min(o.threshold, a.cfg.MaxThreshold)
	o.threshold = a.cfg.MaxThreshold
}
