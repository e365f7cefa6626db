package rdmakv

import (
	"math/bits"
	"sync"
	"sync/atomic"
)

// adaptivePolicy chooses eager or rendezvous per operation and size class
// from the latencies it is told, with no network of its own and a clock
// it is given, so that a test can drive it. A class is a power of two of
// key plus value bytes, the sum the threshold is compared with: class k
// holds [2^(k-1), 2^k), class 0 the empty request. Only the classes whose
// every size may go eager (2^k <= maxEager) have a choice; larger ones go
// rendezvous and are counted together. The rule is in evaluate and
// docs/DESIGN.md.
type adaptivePolicy struct {
	cfg      AdaptiveConfig
	maxEager int // eager only for key plus value below it
	clock    func() int64
	epoch    int64
	window   uint32 // ms
	// evalEvery is how often a class is judged, at most.
	evalEvery int64
	// cut: a request explores when its hash is below it; warmCut
	// replaces it until warmUntil.
	cut       uint64
	warmCut   uint64
	warmUntil int64
	ops       [2]adaptOp // sets, gets
	getAux    atomic.Uint32
	getSeq    atomic.Uint64
	auxMu     sync.Mutex // orders the get threshold's updates
}

// adaptOp is one operation's classes.
type adaptOp struct {
	op      Op
	classes []adaptClass
	beyond  atomic.Uint64 // requests larger than any class with a choice
}

// adaptClass is one size class of one operation.
type adaptClass struct {
	choice  atomic.Uint32 // a Protocol
	seq     atomic.Uint64 // requests that asked for a choice: exploration's counter
	samples [2]sampleRing // by Protocol-1
	// after is, by Protocol-1, what the class's requests cost the next
	// request of their client: that request's latency less its own
	// class's mean, biased by afterBias (adaptive_after.go).
	after     [2]sampleRing
	mean      [2]atomic.Uint32 // ns, at the last evaluation
	afterMean [2]atomic.Int32  // ns, after's trimmed mean at the last evaluation
	nextEval  atomic.Int64
	switches  atomic.Uint64

	id      uint32      // the op's index << 7 | the class's << 1 (word)
	mu      sync.Mutex  // held by an evaluation, for what follows
	last    int64       // when the class last switched
	left    Protocol    // what it switched from
	since   int64       // since when the other protocol has been better; 0: it is not
	judged  int64       // when the class was last judged
	scratch [4][]uint32 // samples, then after, by Protocol-1
	_       [64]byte    // the next class's counters on another cache line
}

const (
	// adaptiveMinSamples is the fewest samples of each protocol a class
	// is judged on: enough for a median, and the U test at p < 0.01
	// needs the two protocols' latencies well apart at so few.
	adaptiveMinSamples = 12
	// adaptiveSparseWindows is how many windows back a protocol's samples
	// reach when one window holds fewer than adaptiveMinSamples.
	adaptiveSparseWindows = 8
	// adaptiveBackSpan is how many windows after a switch the back margin
	// holds for undoing it.
	adaptiveBackSpan = 4
	// adaptiveEvals is how many times a class may be judged per window.
	adaptiveEvals = 16
	// adaptiveWarmExplore multiplies Explore (up to half the requests)
	// over the policy's first window: it knows nothing yet, and a cell of
	// a benchmark, or a client's first seconds, would otherwise spend
	// several windows on its starting threshold.
	adaptiveWarmExplore = 5
)

// newAdaptivePolicy makes a policy for a connection whose eager requests
// must stay below maxEager, starting from the fixed threshold start;
// clock reads nanoseconds. cfg has its defaults filled in.
func newAdaptivePolicy(cfg AdaptiveConfig, maxEager, start int, clock func() int64) *adaptivePolicy {
	p := &adaptivePolicy{
		cfg: cfg, maxEager: maxEager, clock: clock, epoch: clock(),
		window:    uint32(cfg.Window.Milliseconds()),
		evalEvery: max(int64(cfg.Window)/adaptiveEvals, 1),
		cut:       uint64(cfg.Explore * (1 << 64)),
		warmCut:   uint64(min(cfg.Explore*adaptiveWarmExplore, 0.5) * (1 << 64)),
	}
	n := bits.Len(uint(maxEager)) // the classes with 2^k <= maxEager
	for i, op := range [...]Op{OpSet, OpGet} {
		o := &p.ops[i]
		o.op, o.classes = op, make([]adaptClass, n)
		for k := range o.classes {
			c := &o.classes[k]
			c.id = uint32(i<<7 | k<<1)
			c.choice.Store(uint32(ProtocolAt(start, 0, classUpper(k)-1)))
			c.last = p.epoch - int64(cfg.Dwell) // the first switch need not wait
			for j := range c.samples {
				c.samples[j] = newSampleRing(cfg.Samples)
				c.after[j] = newSampleRing(cfg.Samples)
				c.scratch[j] = make([]uint32, 0, len(c.samples[j].buf))
				c.scratch[2+j] = make([]uint32, 0, len(c.after[j].buf))
			}
		}
	}
	p.warmUntil = p.epoch + int64(cfg.Window)
	p.setGetAux()
	return p
}

// classLower and classUpper bound the policy's class k, a SizeClass.
func classLower(k int) int { return int(SizeClass(k).Lower()) }
func classUpper(k int) int { return int(SizeClass(k).Upper()) }

func (p *adaptivePolicy) now() int64 { return p.clock() }

func (p *adaptivePolicy) ms(t int64) uint32 { return uint32((t - p.epoch) / 1e6) }

func (p *adaptivePolicy) op(op Op) *adaptOp {
	if op == OpSet {
		return &p.ops[0]
	}
	return &p.ops[1]
}

// class is the class of a request of n bytes (key plus value) with a
// choice, or nil.
func (o *adaptOp) class(n int) *adaptClass {
	if k := int(SizeClassOf(uint64(n))); k < len(o.classes) {
		return &o.classes[k]
	}
	return nil
}

// current is how a set of n bytes goes, exploration aside.
func (p *adaptivePolicy) current(n int) Protocol {
	if c := p.ops[0].class(n); c != nil {
		return Protocol(c.choice.Load())
	}
	return Rendezvous
}

// setProtocol is how this set of n bytes, at now, goes: its class's
// choice, or the other protocol for an explorer.
func (p *adaptivePolicy) setProtocol(n int, now int64) Protocol {
	c := p.ops[0].class(n)
	if c == nil {
		return Rendezvous
	}
	cur := Protocol(c.choice.Load())
	if mix64(c.seq.Add(1)) < p.cutAt(now) {
		return otherProtocol(cur)
	}
	return cur
}

// cutAt is the exploration cut at now: warmer over the first window.
func (p *adaptivePolicy) cutAt(now int64) uint64 {
	if now < p.warmUntil {
		return p.warmCut
	}
	return p.cut
}

// getThreshold is the threshold this get, at now, asks the server to answer by:
// the policy's, or for an explorer 0 (rendezvous whatever the size) or
// maxEager (eager wherever it may be), half each. A get's size is not
// known before its reply, so it explores both ways blind: a class meets
// its other protocol on about Explore/2 of its gets.
func (p *adaptivePolicy) getThreshold(now int64) int {
	h := mix64(p.getSeq.Add(1))
	switch {
	case h >= p.cutAt(now):
		return int(p.getAux.Load())
	case h&1 == 0:
		return 0
	}
	return p.maxEager
}

// observe records a request of op and n bytes that went by proto and
// began at start (p.now), charges what it took beyond its class's mean to
// the request its client completed last before it began (last, the
// client's: see adaptive_after.go), and judges its class when that is
// due.
func (p *adaptivePolicy) observe(op Op, n int, proto Protocol, start int64, last *atomic.Uint64) {
	end := p.clock()
	o := p.op(op)
	c := o.class(n)
	if c == nil || proto != Eager && proto != Rendezvous {
		o.beyond.Add(1)
		last.Store(0)
		return
	}
	ms := p.ms(end)
	c.samples[proto-1].add(end-start, ms)
	p.charge(last, c, proto, start, end, ms)
	if next := c.nextEval.Load(); end >= next && c.nextEval.CompareAndSwap(next, end+p.evalEvery) {
		p.evaluate(o, c, end)
	}
}

func otherProtocol(p Protocol) Protocol { return Eager + Rendezvous - p }

// mix64 is SplitMix64's finalizer: a request counter made a uniform hash,
// so exploration is pseudo-random, not every n-th request, which a
// workload repeating with that period would alias with.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
