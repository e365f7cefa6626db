//go:build linux && cgo

package verbs

import "sync/atomic"

// ringMinBytes is the send ring's size when depth × message size is
// larger: a server's ring at the default depth and max eager would
// otherwise pin 16 MiB per connection, nearly all of it for replies far
// smaller than the largest.
const ringMinBytes = 1 << 20

// ringBytes sizes a connection's send ring: room for n messages of up to
// size bytes, or at most the larger of ringMinBytes and four of the
// largest, whichever is smaller; and room for one of largest bytes, the
// most it ever sends (transport.Config.MaxSend: a request with a long
// key, which the ring need hold only one of).
func ringBytes(n, size, largest int) int {
	return max(min(n*size, max(ringMinBytes, 4*size)), largest)
}

// sendRing is the bookkeeping of a connection's send ring: messages are
// placed back to back in size bytes (one never wraps, it starts over at
// offset 0), at most slots of them in flight, and reclaimed in order as
// completions come back. Positions only grow; offsets are positions modulo
// size. Reserving is guarded by the caller (sendMu); done runs on the send
// poller.
//
// The sender keeps its remainders (off, slot, sigLeft) as counters rather
// than dividing for them on every message: a 64-bit division takes tens of
// cycles, and reserving and posting a message took five.
type sendRing struct {
	size, slots uint64
	sigEvery    uint64          // signal at least every sigEvery messages
	lastSig     uint64          // position after the last signaled message
	head        uint64          // sequence number of the next message
	pos         uint64          // position after the last message placed
	off         uint64          // pos % size
	slot        uint64          // head % slots
	sigLeft     uint64          // sigEvery - head % sigEvery
	next        uint64          // off after the message reserve placed last
	ends        []atomic.Uint64 // position after message seq, at seq % slots
	tail        atomic.Uint64   // sequence number of the oldest in flight
	tailPos     atomic.Uint64   // position up to which bytes are free again
}

func newSendRing(size, slots int) *sendRing {
	every := uint64(max(1, slots/4))
	return &sendRing{
		size: uint64(size), slots: uint64(slots), sigEvery: every, sigLeft: every,
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
	start, off := r.pos, r.off
	if off+uint64(n) > r.size {
		start += r.size - off
		off = 0
	}
	end := start + uint64(n)
	if end-r.tailPos.Load() > r.size {
		return 0, 0, false, false
	}
	// The entry is free: head-tail < slots, so message head-slots is done.
	r.ends[r.slot].Store(end)
	r.next = off + uint64(n)
	sig = r.sigLeft == 1 || end-r.lastSig >= r.size/4
	return off, r.head, sig, true
}

// posted counts the message reserve placed last; sig as reserve said.
func (r *sendRing) posted(sig bool) {
	r.pos = r.ends[r.slot].Load()
	if sig {
		r.lastSig = r.pos
	}
	r.head++
	if r.off = r.next; r.off == r.size {
		r.off = 0
	}
	if r.slot++; r.slot == r.slots {
		r.slot = 0
	}
	if r.sigLeft--; r.sigLeft == 0 {
		r.sigLeft = r.sigEvery
	}
}

// done reclaims every message up to and including seq.
func (r *sendRing) done(seq uint64) {
	r.tailPos.Store(r.ends[seq%r.slots].Load())
	r.tail.Store(seq + 1)
}
