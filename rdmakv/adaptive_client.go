package rdmakv

import (
	"math"
	"time"
)

// adaptStamp is what a request's slot keeps for the policy: when it
// began, its size (a get's key alone until the reply) and, for a set, its
// protocol.
type adaptStamp struct {
	start int64
	n     int
	proto Protocol
}

// setProtocol is the protocol of the set s carries.
func (c *Client) setProtocol(s *cslot, keyLen, valueLen int) Protocol {
	if c.adapt == nil {
		return c.ProtocolFor(keyLen, valueLen)
	}
	n, now := keyLen+valueLen, c.adapt.now()
	p := c.adapt.setProtocol(n, now)
	s.adapt = adaptStamp{start: now, n: n, proto: p}
	return p
}

// setDone records s's set with the policy when it succeeded, and passes
// its error on. A failed request says nothing of a protocol's latency.
func (c *Client) setDone(s *cslot, err error) error {
	if c.adapt != nil && err == nil {
		c.adapt.observe(OpSet, s.adapt.n, s.adapt.proto, s.adapt.start, &c.adaptLast)
	}
	return err
}

// getAux is the threshold the get s carries asks the server to answer by.
func (c *Client) getAux(s *cslot, keyLen int) uint32 {
	if c.adapt == nil {
		return uint32(c.opts.getThreshold)
	}
	s.adapt = adaptStamp{start: c.adapt.now(), n: keyLen}
	return uint32(c.adapt.getThreshold(s.adapt.start))
}

// gotValue records s's get with the policy under the size and protocol
// its reply had, when it succeeded, and passes its result on.
func (c *Client) gotValue(s *cslot, v *Value, err error) (*Value, error) {
	if c.adapt != nil && err == nil {
		c.adapt.observe(OpGet, s.adapt.n+len(v.r.data), v.r.proto, s.adapt.start, &c.adaptLast)
	}
	return v, err
}

// AdaptiveClass is what the adaptive policy knows of one operation's
// size class (WithAdaptiveThreshold).
type AdaptiveClass struct {
	Op Op
	// Lower and Upper bound the class: key plus value of Lower bytes up
	// to Upper-1. The last class of each op, up to math.MaxInt, holds the
	// sizes eager may not carry, which always go rendezvous.
	Lower, Upper int
	// Choice is how the class's requests go, but for exploration. A get
	// goes by the get threshold, which follows the choices of most classes
	// (see docs/DESIGN.md), so a get class may be served otherwise.
	Choice Protocol
	// EagerMean and RendezvousMean are the trimmed mean latencies over
	// the window at the class's last evaluation, what the policy compares;
	// 0 when there were none.
	EagerMean, RendezvousMean time.Duration
	// EagerAfter and RendezvousAfter are what a request of the class by
	// each protocol added, on the trimmed mean, to the latency of its
	// client's next request beyond that one's own class's mean, at the
	// last evaluation: work the request left behind (below zero: the
	// next request was faster than its mean). The policy weighs each
	// protocol by its mean plus this.
	EagerAfter, RendezvousAfter time.Duration
	// EagerRequests and RendezvousRequests count the requests that
	// succeeded by each protocol.
	EagerRequests, RendezvousRequests uint64
	// Switches counts the changes of Choice.
	Switches uint64
}

// AdaptiveState is a copy of what the adaptive policy knows, sets' classes
// then gets', smallest first; nil without WithAdaptiveThreshold.
func (c *Client) AdaptiveState() []AdaptiveClass {
	if c.adapt == nil {
		return nil
	}
	return c.adapt.state()
}

func (p *adaptivePolicy) state() []AdaptiveClass {
	var out []AdaptiveClass
	for i := range p.ops {
		o := &p.ops[i]
		for k := range o.classes {
			c := &o.classes[k]
			out = append(out, AdaptiveClass{
				Op: o.op, Lower: classLower(k), Upper: classUpper(k), Choice: Protocol(c.choice.Load()),
				EagerMean: time.Duration(c.mean[0].Load()), RendezvousMean: time.Duration(c.mean[1].Load()),
				EagerAfter: time.Duration(c.afterMean[0].Load()), RendezvousAfter: time.Duration(c.afterMean[1].Load()),
				EagerRequests: c.samples[0].n.Load(), RendezvousRequests: c.samples[1].n.Load(),
				Switches: c.switches.Load(),
			})
		}
		out = append(out, AdaptiveClass{
			Op: o.op, Lower: classLower(len(o.classes)), Upper: math.MaxInt, Choice: Rendezvous,
			RendezvousRequests: o.beyond.Load(),
		})
	}
	return out
}
