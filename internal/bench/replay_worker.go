package bench

import "time"

// runReplay issues the requests of its connection's lane until the lane
// ends, end closes (the phase's time is up) or the run is interrupted.
// Paced, each waits for its intended start and its latency counts from
// it, as in an open loop; unpaced, it goes as soon as the worker is free,
// as in a closed loop, until limitNs (> 0).
func (w *worker) runReplay(base epoch, l *lane, paced bool, limitNs int64, end <-chan struct{}) {
	w.queue = -1
	for !w.stop.Load() {
		q, ok := l.take(w, end)
		if !ok {
			break
		}
		w.readyReplay(q)
		start := int64(base.since())
		if paced {
			off := q.off
			if wait := off - start; wait > 0 {
				if !w.sleep(time.Duration(wait)) {
					break
				}
				if w.rec != nil {
					w.rec.recordLate(int64(base.since()) - off)
				}
			}
			if w.phases != nil {
				w.queue = int64(base.since()) - off
			}
			start = off
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
