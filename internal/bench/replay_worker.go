package bench

import "time"

// runReplay issues the requests of its connection's lane until the lane
// ends, end closes (the phase's time is up) or the run is interrupted.
// Paced, each waits for its intended start and its latency counts from
// it, as in an open loop: released by d when pacing precisely, else on
// the worker's own timer (d nil). Unpaced, it goes as soon as the worker
// is free, as in a closed loop, until limitNs (> 0).
func (w *worker) runReplay(base epoch, l *lane, paced bool, d *replayDispatcher, limitNs int64, end <-chan struct{}) {
	w.queue = -1
	for !w.stop.Load() {
		q, ok := l.take(w, end)
		if !ok {
			break
		}
		w.readyReplay(q)
		start := int64(base.since())
		if paced {
			if !w.awaitReplay(d, base, q.off, end) {
				break
			}
			if w.phases != nil {
				w.queue = int64(base.since()) - q.off
			}
			start = q.off
			if w.rec != nil {
				w.rec.sampleIssue(base, q.off)
			}
		}
		p, err := w.issue(q.op)
		done := int64(base.since())
		kind := w.settle(q.op, 0, err)
		w.after(q.op, p, kind, start, done)
		if q.recordedMiss && w.rec != nil {
			w.rec.recordedMisses[p]++
		}
		if !paced && limitNs > 0 && done >= limitNs {
			break
		}
	}
	w.publish(true)
}

// awaitReplay waits for a request's intended start, off: precisely
// through d, or coarsely (d nil). False on interrupt or when end closes.
func (w *worker) awaitReplay(d *replayDispatcher, base epoch, off int64, end <-chan struct{}) bool {
	if d != nil {
		return w.awaitRelease(d, base, off, end)
	}
	return w.sleepTo(base, time.Duration(off))
}

// readyReplay readies request q, whose key take put in w.key: a set's
// value of its recorded size, a get's view.
func (w *worker) readyReplay(q request) {
	if w.phases != nil {
		w.phases.Has = 0
	}
	switch q.op {
	case OpSet:
		w.replayValue(int(q.size))
	case OpGet:
		w.readyGet(0)
	}
}

// replayValue makes w.val a value of size bytes, growing the worker's
// buffer the first time a value needs more: the steady state allocates
// nothing.
func (w *worker) replayValue(size int) {
	if size > len(w.buf) {
		w.buf = make([]byte, max(size, 2*len(w.buf)))
		w.filled = false
	}
	if !w.filled {
		w.codec.Fill(w.buf, w.key, 0)
		w.filled = true
	}
	w.val = w.buf[:size]
}
