package verbs

import "sync/atomic"

// ringMinBytes is the send ring's size when depth × message size is
// larger: a server's ring at the default depth and max eager would
// otherwise pin 16 MiB per connection, nearly all of it for replies far
// smaller than the largest.
const ringMinBytes = 1 << 20

// ringBytes sizes a connection's send ring: room for n messages of up to
// size bytes, or at most the larger of ringMinBytes and four of the
// largest, whichever is smaller.
func ringBytes(n, size int) int { return min(n*size, max(ringMinBytes, 4*size)) }

// sendRing is the bookkeeping of a connection's send ring: messages are
// placed back to back in size bytes (one never wraps, it starts over at
// offset 0), at most slots of them in flight, and reclaimed in order as
// completions come back. Positions only grow; offsets are positions modulo
// size. Reserving is guarded by the caller (sendMu); done runs on the send
// poller.
type sendRing struct {
	size, slots uint64
	sigEvery    uint64          // signal at least every sigEvery messages
	lastSig     uint64          // position after the last signaled message
	head        uint64          // sequence number of the next message
	pos         uint64          // position after the last message placed
	ends        []atomic.Uint64 // position after message seq, at seq % slots
	tail        atomic.Uint64   // sequence number of the oldest in flight
	tailPos     atomic.Uint64   // position up to which bytes are free again
}

func newSendRing(size, slots int) *sendRing {
	return &sendRing{
		size: uint64(size), slots: uint64(slots), sigEvery: uint64(max(1, slots/4)),
		ends: make([]atomic.Uint64, slots),
	}
}

// reserve finds room for an n-byte message (n at most size) and returns
// its offset and sequence number, or false while the ring is full for it.
// posted makes the message count once its post succeeded; a failed post
// leaves nothing to undo.
//
// A message is posted signaled (sig) every sigEvery messages and whenever
// a quarter of the ring has gone by since the last: a ring full by count or
// by bytes then always holds a signaled message whose completion frees it.
func (r *sendRing) reserve(n int) (off, seq uint64, sig, ok bool) {
	if r.head-r.tail.Load() >= r.slots {
		return 0, 0, false, false
	}
	start := r.pos
	if o := start % r.size; o+uint64(n) > r.size {
		start += r.size - o
	}
	end := start + uint64(n)
	if end-r.tailPos.Load() > r.size {
		return 0, 0, false, false
	}
	// The entry is free: head-tail < slots, so message head-slots is done.
	r.ends[r.head%r.slots].Store(end)
	sig = r.head%r.sigEvery == r.sigEvery-1 || end-r.lastSig >= r.size/4
	return start % r.size, r.head, sig, true
}

// posted counts the message reserve placed last; sig as reserve said.
func (r *sendRing) posted(sig bool) {
	r.pos = r.ends[r.head%r.slots].Load()
	if sig {
		r.lastSig = r.pos
	}
	r.head++
}

// done reclaims every message up to and including seq.
func (r *sendRing) done(seq uint64) {
	r.tailPos.Store(r.ends[seq%r.slots].Load())
	r.tail.Store(seq + 1)
}
