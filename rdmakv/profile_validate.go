package rdmakv

import (
	"errors"
	"fmt"
)

// Validate reports every problem with p at once: its version, each rule's
// op, threshold and bands, and bands of one op that overlap (a load
// would then have two thresholds, and the order of the rules would decide).
// Each problem begins with the profile's file when it was read from one,
// and names its rule by number, the first being rule 1.
func (p *Profile) Validate() error {
	var errs []error
	add := func(format string, a ...any) {
		if p.name != "" {
			format, a = "%s: "+format, append([]any{p.name}, a...)
		}
		errs = append(errs, fmt.Errorf(format, a...))
	}
	if p.Version != ProfileVersion {
		add("kvbench_profile %d: want %d", p.Version, ProfileVersion)
	}
	if err := checkThreshold(p.Default); err != nil {
		add("default_threshold %w", err)
	}
	for i := range p.Rules {
		for _, err := range p.Rules[i].problems() {
			add("rule %d: %w", i+1, err)
		}
		for j := range i {
			if p.Rules[j].overlaps(&p.Rules[i]) {
				add("rule %d: %s band %v overlaps rule %d's %v", i+1, p.Rules[i].Op, p.Rules[i].InFlight, j+1, p.Rules[j].InFlight)
			}
		}
	}
	return errors.Join(errs...)
}

// problems are what is wrong with r on its own.
func (r *ProfileRule) problems() []error {
	var errs []error
	if r.Op != "get" && r.Op != "set" {
		errs = append(errs, fmt.Errorf("op %q: want get or set", r.Op))
	}
	if err := checkThreshold(r.Threshold); err != nil {
		errs = append(errs, fmt.Errorf("threshold %w", err))
	}
	for _, b := range [...]struct {
		name string
		v    [2]int
	}{{"in_flight", r.InFlight}, {"sizes", r.Sizes}} {
		if b.v[0] < 0 || b.v[1] < 0 || (b.v[1] != 0 && b.v[0] > b.v[1]) {
			errs = append(errs, fmt.Errorf("%s %v: want 0 <= lo <= hi, or hi 0 for no upper bound", b.name, b.v))
		}
	}
	return errs
}

// overlaps says r and o, of one op, have a load in common.
func (r *ProfileRule) overlaps(o *ProfileRule) bool {
	if r.Op != o.Op {
		return false
	}
	rlo, rhi := r.band()
	olo, ohi := o.band()
	return rlo <= ohi && olo <= rhi
}

// checkThreshold says what is wrong with threshold n, if anything.
func checkThreshold(n int) error {
	if n < 0 || n > MaxEagerLimit {
		return fmt.Errorf("%d: want 0 to %d", n, MaxEagerLimit)
	}
	return nil
}
