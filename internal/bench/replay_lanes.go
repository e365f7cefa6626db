package bench

import (
	"encoding/hex"
	"sync"

	"github.com/cespare/xxhash/v2"

	"github.com/kvbench/kvbench/internal/trace"
	"github.com/kvbench/kvbench/rdmakv"
)

// A replay hands its requests from one reader goroutine (feeder) to the
// workers through a lane per connection: batches of requests, in trace
// order, that the connection's workers take one by one. Batches go round
// between a lane's free and full channels, so the steady state allocates
// nothing and a channel operation is paid per batch, not per request.
const (
	batchLen   = 1024 // requests in a batch
	laneDepth  = 4    // batches a lane holds, full or being filled
	hashKeyLen = 16   // hex digits of a long key's hash
)

// request is one request of a batch; its key is in the batch's arena.
type request struct {
	off          int64 // intended start, ns from the phase's start
	size         int32 // recorded value size
	keyAt, keyN  int32
	op           Op
	recordedMiss bool // a get the trace recorded as a miss
}

type batch struct {
	n    int
	reqs [batchLen]request
	keys []byte
}

// lane is one connection's requests.
type lane struct {
	full chan *batch // closed when the phase's requests end
	free chan *batch
	fill *batch // the feeder's, being filled
	// The workers' fields sit on cache lines of their own: the feeder
	// writing fill would otherwise evict them at every request.
	_ [64]byte
	// shared says the connection has more than one worker, which take
	// requests in order under mu; a lone worker needs no lock.
	shared bool
	mu     sync.Mutex
	cur    *batch
	pos    int
	_      [64]byte
}

// newLanes makes n lanes, each for workers workers; a batch's keys start
// with room for keys of meanKey bytes and grow to what the trace needs.
func newLanes(n, workers, meanKey int) []*lane {
	ls := make([]*lane, n)
	for i := range ls {
		l := &lane{full: make(chan *batch, laneDepth), free: make(chan *batch, laneDepth), shared: workers > 1}
		for range laneDepth {
			l.free <- &batch{keys: make([]byte, 0, batchLen*meanKey)}
		}
		ls[i] = l
	}
	return ls
}

// take gives w the lane's next request: its key in w.key, its value
// sized in w.val. False when the phase's requests are over or end closes.
func (l *lane) take(w *worker, end <-chan struct{}) (request, bool) {
	if !l.shared {
		return l.next(w, end)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next(w, end)
}

// next is take's work, by the lane's one worker or under its lock.
func (l *lane) next(w *worker, end <-chan struct{}) (request, bool) {
	if l.cur != nil && l.pos == l.cur.n {
		l.cur.n, l.cur.keys = 0, l.cur.keys[:0]
		l.free <- l.cur // never blocks: a lane's batches fit its channels
		l.cur = nil
	}
	if l.cur == nil {
		select {
		case b, ok := <-l.full:
			if !ok {
				return request{}, false
			}
			l.cur, l.pos = b, 0
		case <-end:
			return request{}, false
		case <-w.done:
			return request{}, false
		}
	}
	q := l.cur.reqs[l.pos]
	l.pos++
	w.key = append(w.key[:0], l.cur.keys[q.keyAt:q.keyAt+q.keyN]...)
	return q, true
}

// put adds rec, due at off, to the lane's batch being filled, sending the
// batch when it is full; false if quit closed while it waited for a free
// batch.
func (l *lane) put(rec *trace.Record, off int64, keySize int, quit <-chan struct{}) bool {
	if l.fill == nil {
		select {
		case l.fill = <-l.free:
		case <-quit:
			return false
		}
	}
	b := l.fill
	q := &b.reqs[b.n]
	q.off, q.size, q.op = off, int32(rec.ValueSize), opOf(rec.Op)
	q.recordedMiss = rec.Op == rdmakv.OpGet && rec.ValueSize == 0
	q.keyAt = int32(len(b.keys))
	b.keys = appendKey(b.keys, rec.Key, keySize)
	q.keyN = int32(len(b.keys)) - q.keyAt
	b.n++
	if b.n == batchLen {
		return l.flush(quit)
	}
	return true
}

// flush sends the batch being filled, if any.
func (l *lane) flush(quit <-chan struct{}) bool {
	if l.fill == nil || l.fill.n == 0 {
		return true
	}
	select {
	case l.full <- l.fill:
		l.fill = nil
		return true
	case <-quit:
		return false
	}
}

// appendKey appends key as the replay sends it: as recorded, or when
// longer than keySize the hex of its xxhash, cut to keySize.
func appendKey(dst, key []byte, keySize int) []byte {
	if len(key) <= keySize {
		return append(dst, key...)
	}
	var sum [8]byte
	h := xxhash.Sum64(key)
	for i := range sum {
		sum[i] = byte(h >> (56 - 8*i))
	}
	var hx [hashKeyLen]byte
	hex.Encode(hx[:], sum[:])
	return append(dst, hx[:min(keySize, hashKeyLen)]...)
}

// ReplayKey is the key a replay sends for a recorded key, keys.size
// being keySize.
func ReplayKey(key []byte, keySize int) string { return string(appendKey(nil, key, keySize)) }

func opOf(op rdmakv.Op) Op {
	switch op {
	case rdmakv.OpGet:
		return OpGet
	case rdmakv.OpSet:
		return OpSet
	}
	return OpDelete
}
