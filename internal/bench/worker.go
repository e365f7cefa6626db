package bench

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// KeyGen draws key indexes; keygen.Generator satisfies it.
type KeyGen interface {
	Next(r *rand.Rand) int64
}

// pub is what a worker publishes for progress reports, on its own cache
// line so that workers never share one.
type pub struct {
	ops, errs atomic.Int64
	_         [48]byte
}

// worker issues operations on one target. Everything it touches per
// operation is its own.
type worker struct {
	// id is the worker's number among all ranks' workers; local its
	// index in this rank.
	id, workers int
	local       int
	t           Target
	ctx         context.Context // for operations; not cancelled by an interrupt
	done        <-chan struct{} // closed on interrupt
	stop        *atomic.Bool
	enough      *atomic.Bool // the phase's until holds; nil: no until
	codec       Codec
	keys        KeyGen
	keyCount    int64
	keySize     int
	keySizes    *sizer  // the keys' sizes, when drawn (Keys.SizeLaw)
	getP, setP  float64 // cumulative mix thresholds
	shard       *shard  // verify state; nil unless verifying
	verify      VerifyCounts

	rng       *rand.Rand
	key, val  []byte
	valueSize int
	filled    bool // val holds a valid value (not verifying)
	// sizes, when the run draws its values' sizes (Config.Sizes), is the
	// worker's draw of them; buf then holds the largest value and val is
	// the start of it. sets counts the worker's sets outside verify mode,
	// which number their draws.
	sizes *sizer
	buf   []byte
	sets  uint64

	rec *recorder // the phase's; nil before the first
	// phases is where the target times each operation (nil unless the
	// run records phases); queue is the current operation's queueing in
	// an open loop, -1 in a closed one.
	phases *OpPhases
	queue  int64
	pub    *pub
	ops    int64
	errs   int64
	timer  *time.Timer   // coarse pacing's wait
	wake   chan struct{} // precise pacing's wait; see dispatcher
	viewFn func([]byte)
	// state of the get in progress, read by viewFn
	seen     bool
	viewKind ErrorKind
	viewVer  uint64
	viewLen  int
	wantLen  int
	want     uint64 // the version the get in progress should find
	setVer   uint64 // the version the set in progress writes
}

func (w *worker) init() {
	w.viewFn = w.view
	w.timer = time.NewTimer(time.Hour)
	w.timer.Stop()
	w.wake = make(chan struct{}, 1)
}

// view runs inside Get while the value is valid.
func (w *worker) view(b []byte) {
	w.seen = true
	w.viewLen = len(b)
	if w.shard == nil {
		return
	}
	w.viewVer, w.viewKind = w.codec.Check(b, w.key, w.wantLen)
}

// next picks the next operation and its key, and readies a set's value,
// before the clock starts: the harness times the store call alone, as
// go-ycsb's measurement decorator does, not its own choices.
func (w *worker) next() (op Op, slot int64) {
	if w.phases != nil {
		w.phases.Has = 0
	}
	u := w.rng.Float64()
	op = OpDelete
	if u < w.getP {
		op = OpGet
	} else if u < w.setP {
		op = OpSet
	}
	idx := w.keys.Next(w.rng)
	if w.shard != nil {
		idx = ownKey(idx, w.keyCount, w.id, w.workers)
		slot = idx / int64(w.workers)
	}
	w.makeKey(idx)
	switch op {
	case OpSet:
		w.readySet(idx, false)
	case OpGet:
		w.readyGet(slot)
	}
	return op, slot
}

// issue runs op on the target: the part of an operation the clock times.
// A get's value is checked inside it (view), while it is valid.
func (w *worker) issue(op Op) (Protocol, error) {
	switch op {
	case OpSet:
		return w.t.Set(w.ctx, w.key, w.val)
	case OpGet:
		return w.t.Get(w.ctx, w.key, w.viewFn)
	}
	return w.t.Delete(w.ctx, w.key)
}

// settle classifies op's outcome and, when verifying, records or checks
// it against what this worker wrote; it runs after the clock stops.
func (w *worker) settle(op Op, slot int64, err error) ErrorKind {
	kind := Classify(err)
	switch op {
	case OpSet:
		w.settleSet(slot, kind)
		return kind
	case OpGet:
		return w.settleGet(kind)
	}
	w.settleDelete(slot, kind)
	return kind
}

// preloadSet writes the current key, index idx, untimed.
func (w *worker) preloadSet(idx, slot int64) ErrorKind {
	w.readySet(idx, true)
	_, err := w.issue(OpSet)
	return w.settle(OpSet, slot, err)
}

// readySet fills the value for key index idx: when verifying, with the
// next version of this worker's writes; otherwise once. When the run
// draws its values' sizes, it first draws this one's (ValueSize): a
// preload's at version 0, a set's at the version it writes, or outside
// verify mode at its number among the workers' sets. Outside verify mode
// every value is then the start of the one filled, whose content nothing
// checks.
func (w *worker) readySet(idx int64, preload bool) {
	if w.shard != nil {
		w.setVer = w.shard.next
		w.shard.next++
	}
	if w.sizes != nil {
		var v uint64
		switch {
		case preload:
		case w.shard != nil:
			v = w.setVer
		default:
			w.sets++
			v = w.sets*uint64(w.workers) + uint64(w.id)
		}
		w.val = w.buf[:w.sizes.size(idx, v)]
	}
	if w.shard != nil {
		w.codec.Fill(w.val, w.key, w.setVer)
	} else if !w.filled {
		w.codec.Fill(w.buf, w.key, 0)
		w.filled = true
	}
}

// moved is the value bytes op moved, having succeeded: the value it set
// or the one it got.
func (w *worker) moved(op Op) int64 {
	switch {
	case op == OpSet:
		return int64(len(w.val))
	case op == OpGet && w.seen:
		return int64(w.viewLen)
	}
	return 0
}

// sized is the size of op's value, whether or not it succeeded: the value
// it set, or the one it got; 0 when it had none.
func (w *worker) sized(op Op) int {
	switch {
	case op == OpSet:
		return len(w.val)
	case op == OpGet && w.seen:
		return w.viewLen
	}
	return 0
}

func (w *worker) settleSet(slot int64, kind ErrorKind) {
	if s := w.shard; s != nil {
		if kind == KindNone {
			s.ver[slot], s.size[slot] = w.setVer, int32(len(w.val))
		} else {
			s.ver[slot] = unknown
		}
	}
}

func (w *worker) settleDelete(slot int64, kind ErrorKind) {
	s := w.shard
	if s == nil {
		return
	}
	switch kind {
	case KindNone:
		s.ver[slot] = absent
	case KindNotFound:
		if v := s.ver[slot]; v != absent && v != unknown {
			w.verify.Missing++
		}
		s.ver[slot] = absent
	default:
		s.ver[slot] = unknown
	}
}

// readyGet notes what the get should find, for view to check.
func (w *worker) readyGet(slot int64) {
	w.seen, w.viewKind = false, KindNone
	w.want = uint64(unknown)
	w.wantLen = -1
	if s := w.shard; s != nil {
		w.want = s.ver[slot]
		if w.want != absent && w.want != unknown {
			w.wantLen = int(s.size[slot])
		}
	}
}

func (w *worker) settleGet(kind ErrorKind) ErrorKind {
	if w.shard == nil || (kind != KindNone && kind != KindNotFound) {
		return kind
	}
	want := w.want
	w.verify.Checked++
	switch {
	case kind == KindNotFound:
		if want != absent && want != unknown {
			w.verify.Missing++
		}
	case !w.seen:
		// A successful get must show its value.
		w.verify.Mismatches++
		kind = KindVerifyMismatch
	case w.viewKind != KindNone:
		kind = w.viewKind
		if kind == KindTorn {
			w.verify.Torn++
		} else {
			w.verify.Mismatches++
		}
	case want == absent || (want != unknown && w.viewVer != 0 && w.viewVer != want):
		// A deleted key came back, or an older version did.
		w.verify.Mismatches++
		kind = KindVerifyMismatch
	}
	return kind
}

// publish makes progress visible to the reporter every few operations.
func (w *worker) publish(force bool) {
	if force || w.ops&15 == 0 {
		w.pub.ops.Store(w.ops)
		w.pub.errs.Store(w.errs)
	}
}

// after accounts one completed operation.
func (w *worker) after(op Op, p Protocol, kind ErrorKind, startNs, endNs int64) {
	w.ops++
	if kind != KindNone && kind != KindNotFound {
		w.errs++
	}
	if w.rec != nil {
		lat := w.rec.record(op, p, endNs-startNs, kind, endNs)
		w.rec.sampleLatency(op, p, lat)
		var moved int64
		if kind == KindNone {
			moved = w.moved(op)
			w.rec.bytes[op][p] += moved
		}
		if w.rec.cls != nil {
			w.rec.recordSize(op, p, w.sized(op), moved, lat)
		}
		// A failed operation's phases are not its target's: they stop
		// wherever it failed.
		if w.phases != nil && w.phases.Timed() && (kind == KindNone || kind == KindNotFound) {
			w.rec.recordPhases(op, p, w.phases, endNs-startNs, w.queue)
		}
	}
	w.publish(false)
}

// halted says the worker is to stop: the run was interrupted, or the
// phase's until holds.
func (w *worker) halted() bool {
	return w.stop.Load() || (w.enough != nil && w.enough.Load())
}

// runClosed issues operations back to back until quota operations are done
// (quota < 0: no quota) or the phase's time is up (limitNs > 0).
func (w *worker) runClosed(base epoch, quota int64, limitNs int64) {
	w.queue = -1
	for n := int64(0); quota < 0 || n < quota; n++ {
		if w.halted() {
			break
		}
		op, slot := w.next()
		start := int64(base.since())
		p, err := w.issue(op)
		end := int64(base.since())
		w.after(op, p, w.settle(op, slot, err), start, end)
		if limitNs > 0 && end >= limitNs {
			break
		}
	}
	w.publish(true)
}

// runOpen issues operations id, id+workers, id+2*workers, ... of the
// schedule, each at its intended start or as soon as possible after it if
// the worker is behind; latency counts from the intended start. Operations
// that are late are never dropped. total < 0 means no operation limit;
// limitNs > 0 ends the schedule at that offset. With a dispatcher (precise
// pacing) the worker waits for it to release each slot; without, it waits
// on its own timer (coarse pacing).
func (w *worker) runOpen(base epoch, pacer Pacer, total int64, limitNs int64, d *dispatcher) {
	for g := int64(w.id); total < 0 || g < total; g += int64(w.workers) {
		off, ok := pacer.Offset(g)
		if !ok || (limitNs > 0 && int64(off) >= limitNs) {
			break
		}
		if w.halted() {
			break
		}
		// Readied while the intended start is still ahead, when it is;
		// past it, readying is lateness like any backlog (queue phase).
		op, slot := w.next()
		if d != nil {
			if !w.await(d, g, base, off) {
				break
			}
		} else if !w.sleepTo(base, off) {
			break
		}
		if w.phases != nil {
			w.queue = int64(base.since() - off)
		}
		if w.rec != nil {
			w.rec.sampleIssue(base, int64(off))
		}
		p, err := w.issue(op)
		end := int64(base.since())
		w.after(op, p, w.settle(op, slot, err), int64(off), end)
	}
	w.publish(true)
}

// sleepTo waits on w's own timer until off, when that is ahead (coarse
// pacing), and reports whether it got there; false on interrupt. The
// worker was then idle at the intended start, so any lateness is the
// harness's own (timer granularity, scheduling), not backlog from the
// target: it stays inside the latency (measured from off) and is
// reported beside it, as the issue delay.
func (w *worker) sleepTo(base epoch, off time.Duration) bool {
	wait := off - base.since()
	if wait <= 0 {
		return true
	}
	if !w.sleep(wait) {
		return false
	}
	if w.rec != nil {
		w.rec.recordLate(int64(base.since() - off))
	}
	return true
}

// sleep waits d unless the run is interrupted first (coarse pacing). It
// uses the runtime's timer, which wakes through epoll_wait with millisecond
// granularity (golang/go#47084): a 50µs wait lasts up to about 1ms, and in
// an open loop that lateness is inside the latency. Each cell reports it as
// its issue delay. Blocking the thread in nanosleep instead holds its P and
// stalls the process's other goroutines until sysmon retakes it (up to
// 10ms: measured p99 ten times worse), and every worker spinning would take
// every core; precise pacing therefore spins in one dispatcher only.
func (w *worker) sleep(d time.Duration) bool {
	w.timer.Reset(d)
	select {
	case <-w.timer.C:
		return true
	case <-w.done:
		w.timer.Stop()
		return false
	}
}
