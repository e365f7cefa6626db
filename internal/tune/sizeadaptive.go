package tune

import (
	"slices"

	"github.com/kvbench/kvbench/rdmakv"
)

// This file compares the adaptive policy on fixed sizes: measured at each
// (op, size) as one more entry in the rotation beside the two forced
// protocols, it is set against the protocol that each fixed way of
// choosing gives the size, whose rounds were measured beside its own, so
// no more is measured for them.

// adaptivePolicy is the rotation's entry for the adaptive policy: no
// protocol forced (Request.by).
const adaptivePolicy Protocol = 0

// ExploreTolerance is how much worse than a size's clear winner the
// adaptive policy may measure: the cost of the share of requests it
// sends by the other protocol to keep both protocols' latencies current.
const ExploreTolerance = 0.02

// rotation is what a round measures at each (op, size), in the first
// round's order: the two protocols, then the adaptive policy when
// compared.
func (c *Config) rotation() []Protocol {
	if c.Adaptive {
		return []Protocol{Eager, Rendezvous, adaptivePolicy}
	}
	return []Protocol{Eager, Rendezvous}
}

// rotate is order rotated left by rep: with two entries they alternate
// which goes first, with three each takes every place in turn.
func rotate(order []Protocol, rep int) []Protocol {
	k := rep % len(order)
	return append(slices.Clone(order[k:]), order[:k]...)
}

// by is req measured by entry p of the rotation: p forced, or under the
// adaptive policy.
func (req Request) by(p Protocol) Request {
	req.Protocol = p
	if p == adaptivePolicy {
		req.Threshold = AdaptiveThreshold
	}
	return req
}

// Policy names how a per-size request chooses its protocol: "eager" or
// "rendezvous" forced, or "adaptive".
func (req Request) Policy() string {
	if req.Threshold == AdaptiveThreshold {
		return AdaptiveName
	}
	return req.Protocol.String()
}

// sizeAdaptive is the policy at one size from its rounds; refused says
// the target refused it there.
func (j Judge) sizeAdaptive(samples []Sample, refused bool) *Adaptive {
	a := &Adaptive{Candidate: Candidate{Threshold: AdaptiveThreshold, Status: Measured, Samples: samples}}
	if refused || len(samples) == 0 {
		a.Status, a.Samples = Refused, nil
		return a
	}
	j.summarise(&a.Candidate)
	return a
}

// compareAdaptive compares the policy, at every load and size it was
// measured, with the protocol that the load's threshold, the profile
// and the size's winner give the size.
func (r *Result) compareAdaptive(j Judge) {
	profile := r.Profile("")
	for i := range r.Loads {
		l := &r.Loads[i]
		for k := range l.Ops {
			o := &l.Ops[k]
			own := -1 // the profile's threshold for o at l
			if profile != nil {
				get, set := profile.Thresholds(l.Load.Connections * l.Load.Depth)
				own = set
				if o.Op == rdmakv.OpGet {
					own = get
				}
			}
			for n := range o.Points {
				j.compareAt(&o.Points[n], l.Recommended, own, r.Config.KeySize)
			}
		}
	}
}

// compareAt compares pt's policy with the protocol that threshold (the
// load's, 0: none recommended) and own (the profile's, -1: none written)
// give pt's size, and with the size's winner.
func (j Judge) compareAt(pt *Point, threshold, own, keySize int) {
	a := pt.Adaptive
	if a == nil || a.Status != Measured {
		return
	}
	if threshold > 0 {
		a.VsChosen = j.againstProtocol(a, pt, rdmakv.ProtocolAt(threshold, keySize, pt.Size), threshold)
	}
	if own >= 0 {
		a.VsProfile = j.againstProtocol(a, pt, rdmakv.ProtocolAt(own, keySize, pt.Size), own)
	}
	switch pt.Winner {
	case WinEager:
		a.VsWinner = j.againstProtocol(a, pt, Eager, 0)
	case WinRendezvous:
		a.VsWinner = j.againstProtocol(a, pt, Rendezvous, 0)
	}
}

// againstProtocol compares a with protocol p at pt, which threshold
// gives it, over their shared rounds; nil when p was not measured there.
func (j Judge) againstProtocol(a *Adaptive, pt *Point, p Protocol, threshold int) *Comparison {
	fixed := Candidate{Threshold: threshold, Samples: pt.Rendezvous, Value: pt.RdvValue}
	if p == Eager {
		fixed.Samples, fixed.Value = pt.Eager, pt.EagerValue
	}
	if len(fixed.Samples) == 0 {
		return nil
	}
	c := j.comparison(&a.Candidate, &fixed)
	c.Protocol = p.String()
	return c
}

// Shortfall is how much worse the policy measured than the fixed choice,
// as a share of the fixed choice's figure: 0.03 is 3% slower, or 3% less
// throughput; 0 or below when it did as well or better, 0 when the fixed
// choice's figure is 0 (a goal it met at no rate).
func (c *Comparison) Shortfall(o Objective) float64 {
	switch {
	case c.Value <= 0:
		return 0
	case o.Higher():
		return 1 - c.Ratio
	}
	return c.Ratio - 1
}
