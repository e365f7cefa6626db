package rdmakv

import "sync/atomic"

// A request's latency is not all it costs. Over TCP a rendezvous get
// ends with a release the server handles after the client has its
// value, on the connection the client's next request then waits behind,
// and every protocol's leftover work delays whatever the client sends
// next. So each request's latency, less its own class's mean, is charged
// to the request its client completed last before it began (the
// client's last), and a class weighs each protocol by its mean latency
// plus that charge. A request that began before the last one ended is
// charged nothing: it was already waiting, its latency is mostly the
// queue of its client's other requests, and a charge from it would only
// widen the test's error. So at one request in flight per client the
// charge is what the class left behind; at more, few requests are
// charged, a class holds fewer than adaptiveMinSamples charges, and the
// rule weighs latencies alone.

// afterBias lifts a charge, which may be below zero, into a sample's
// unsigned 32 bits, clear of 0 (an empty slot): charges of up to about
// 2.1 s either way are kept.
const afterBias = 1 << 31

// word names c and proto in a client's last; 0 is none.
func (c *adaptClass) word(proto Protocol) uint32 { return c.id | uint32(proto-1) + 1 }

// byWord is the class and protocol word names.
func (p *adaptivePolicy) byWord(w uint32) (*adaptClass, Protocol) {
	w--
	return &p.ops[w>>7].classes[w>>1&63], Protocol(w&1) + 1
}

// charge makes c's request by proto, which began at start and ended at
// end (p.now), its client's last, and charges what it took beyond its
// class's mean to the request before it, if that one ended before this
// one began. A class not yet judged has no mean and charges nothing. The
// word holds the end, in ns since the policy's epoch, above the class's
// word (8 bits): 2^56 ns, over two years, before it wraps.
func (p *adaptivePolicy) charge(last *atomic.Uint64, c *adaptClass, proto Protocol, start, end int64, ms uint32) {
	prev := last.Swap(uint64(end-p.epoch)<<8 | uint64(c.word(proto)))
	mean := int64(c.mean[proto-1].Load())
	if prev&0xff == 0 || mean == 0 || start-p.epoch < int64(prev>>8) {
		return
	}
	pc, pp := p.byWord(uint32(prev & 0xff))
	pc.after[pp-1].add(end-start-mean+afterBias, ms)
}

// judged is one protocol's windows at a judgment, as the rule weighs
// them: how many latencies and charges they hold, and the trimmed mean of
// each with its squared standard error (the charge's without afterBias).
type judged struct {
	n, charges      int
	mean, se2       float64
	after, afterSE2 float64
}

// judgeOf is the judged of sorted windows own (latencies) and after
// (charges).
func judgeOf(own, after []uint32) judged {
	w := judged{n: len(own), charges: len(after)}
	w.mean, w.se2 = trimmed(own)
	if len(after) > 0 {
		m, s := trimmed(after)
		w.after, w.afterSE2 = m-afterBias, s
	}
	return w
}

// cost is what a request of w's protocol costs on the mean, its trimmed
// mean latency plus, with after, its trimmed mean charge, and the squared
// standard error of that sum.
func (w judged) cost(after bool) (mean, se2 float64) {
	if after {
		return w.mean + w.after, w.se2 + w.afterSE2
	}
	return w.mean, w.se2
}
