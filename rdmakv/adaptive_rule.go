package rdmakv

import (
	"math"
	"slices"
)

// evaluate judges class c of o at now and switches its choice when the
// other protocol has been better by the rule (better) at every judgment
// for half a dwell, with no gap longer than that between two. One window
// that noise made look better is not enough: the window is judged anew
// every 1/adaptiveEvals of it, and over a long run a test at p < 0.01 is
// passed by chance now and then. The means are kept for AdaptiveState.
func (p *adaptivePolicy) evaluate(o *adaptOp, c *adaptClass, now int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := Protocol(c.choice.Load())
	oth := otherProtocol(cur)
	ms := p.ms(now)
	a := c.judge(oth, ms, p.window)
	b := c.judge(cur, ms, p.window)
	confirm := int64(p.cfg.Dwell) / 2
	ok := p.better(c, oth, a, b, now)
	if !ok || now-c.judged > confirm {
		c.since = 0 // a gap in the judgments breaks the agreement too
	}
	c.judged = now
	if !ok {
		return
	}
	if c.since == 0 {
		c.since = now
	}
	if now-c.since < confirm {
		return
	}
	c.choice.Store(uint32(oth))
	c.last, c.left, c.since = now, cur, 0
	for i := range c.samples {
		// The protocol left is explored from now on: it keeps every
		// sample again, and the chosen one strides anew.
		c.samples[i].every.Store(1)
		c.after[i].every.Store(1)
	}
	c.switches.Add(1)
	if o.op == OpGet {
		p.setGetAux()
	}
}

// judge is proto's windows at ms.
func (c *adaptClass) judge(proto Protocol, ms, window uint32) judged {
	i := int(proto - 1)
	w := judgeOf(c.window(i, ms, window), c.window(2+i, ms, window))
	c.mean[i].Store(uint32(min(w.mean, math.MaxUint32)))
	if w.charges > 0 {
		c.afterMean[i].Store(int32(max(min(w.after, math.MaxInt32), math.MinInt32)))
	}
	return w
}

// window is the samples of c's ring i (samples, then after, by
// Protocol-1) within the window of ms, sorted, in c's scratch, or within
// adaptiveSparseWindows windows when one holds too few.
func (c *adaptClass) window(i int, ms, window uint32) []uint32 {
	r := &c.after[(i-2)&1]
	if i < 2 {
		r = &c.samples[i]
	}
	c.scratch[i] = r.recent(c.scratch[i], ms, window)
	r.stride(ms, window)
	if len(c.scratch[i]) < adaptiveMinSamples {
		// The protocol a class explores carries Explore of its requests:
		// at a low rate one window never holds enough of them, and the
		// class would keep its first choice however wrong. Its samples
		// then reach back further, which slows only a sparse class.
		c.scratch[i] = r.recent(c.scratch[i], ms, window*adaptiveSparseWindows)
	}
	slices.Sort(c.scratch[i])
	return c.scratch[i]
}

// better says whether oth, whose windows are a, beats the current
// choice, whose windows are b: enough samples of both, the other's cost
// (its trimmed mean latency plus the trimmed mean of what its requests
// were charged, adaptive_after.go) below the current's by more than the
// margin, Yuen's test saying it is lower at p < 0.01, and the class's
// last switch at least a dwell ago. A mean, not the median, because a closed loop's
// rate is its number in flight over the mean latency, and a protocol
// whose tail is heavier costs the class that tail in rate and in its high
// percentiles even where its median is lower; trimmed, because a plain
// mean of a hundred latencies follows its one or two stalls of
// milliseconds, which the protocol seldom caused, and a test on it then
// tells even a protocol twice as fast from noise only now and then. The
// margin guards against switching on a difference too small to matter,
// the test against one that noise made; the dwell and the larger margin
// for going back keep a class whose protocols are about even from
// swinging between them.
func (p *adaptivePolicy) better(c *adaptClass, oth Protocol, a, b judged, now int64) bool {
	if a.n < adaptiveMinSamples || b.n < adaptiveMinSamples || now-c.last < int64(p.cfg.Dwell) {
		return false
	}
	margin := p.cfg.Margin
	if oth == c.left && now-c.last < adaptiveBackSpan*int64(p.cfg.Window) {
		margin = p.cfg.BackMargin
	}
	// Both protocols are weighed with their charges, or neither.
	after := a.charges >= adaptiveMinSamples && b.charges >= adaptiveMinSamples
	ma, _ := a.cost(after)
	mb, _ := b.cost(after)
	return ma < (1-margin)*mb && lowerT(a, b, after) > adaptiveT
}

// setGetAux makes the get threshold the class boundary that the get
// classes' choices disagree with least (eager classes above it,
// rendezvous ones below), counting the classes that carried requests
// (boundary). Choices that rise with size, as they do where one
// protocol's cost grows faster, give the smallest boundary where
// rendezvous is chosen; one class out of line does not drag the threshold
// down to it, and a class no get fell in, which keeps its first choice,
// does not hold it back. The server answers a get by one threshold, so a
// class on the wrong side of it is served by the protocol it did not
// choose.
func (p *adaptivePolicy) setGetAux() {
	p.auxMu.Lock()
	defer p.auxMu.Unlock()
	cls := p.ops[1].classes
	at := boundary(len(cls), func(k int) bool { return Protocol(cls[k].choice.Load()) == Eager },
		func(k int) bool { return cls[k].samples[0].n.Load()+cls[k].samples[1].n.Load() > 0 })
	p.getAux.Store(uint32(min(classLower(at), p.maxEager)))
}
