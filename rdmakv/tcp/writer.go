package tcp

import (
	"net"
	"sync/atomic"
)

// writeChunk bounds one socket write, so that a large payload shows
// progress (frameWriter.writes) to the listener's stall watchdog as it goes.
const writeChunk = 1 << 20

// directMin is the payload size from which bytes move between the socket
// and registered memory directly: written with writev from where they lie,
// read straight into their destination. Smaller ones are copied through the
// stream buffers, which batches small frames into fewer system calls.
const directMin = 2 << 10

// frameWriter gathers frames for the socket. Small frames are copied into
// buf; a large payload is not copied but written together with what buf
// holds in one writev. It is not safe for concurrent use (conn.wmu guards
// it). After an error every call fails with that error. Its buffer is made
// on the first frame, so a connection that never sends holds none.
type frameWriter struct {
	s      stream
	size   int
	buf    []byte
	iovArr [2][]byte
	iov    net.Buffers
	err    error
	// busy is set while a socket write is under way and writes counts
	// those done: a write that stays busy with writes unchanged is stuck
	// on a peer that reads nothing.
	busy   atomic.Bool
	writes atomic.Uint64
}

func (w *frameWriter) begin() { w.busy.Store(true) }

func (w *frameWriter) end() {
	w.writes.Add(1)
	w.busy.Store(false)
}

func newFrameWriter(s stream, size int) *frameWriter {
	return &frameWriter{s: s, size: size}
}

func (w *frameWriter) header(h *header) {
	if w.buf == nil {
		w.buf = make([]byte, 0, w.size)
	}
	if len(w.buf)+headerSize > cap(w.buf) {
		w.flush()
	}
	n := len(w.buf)
	w.buf = w.buf[:n+headerSize]
	h.encode(w.buf[n:])
}

func (w *frameWriter) payload(p []byte) {
	if len(p) == 0 || w.err != nil {
		return
	}
	if len(p) < directMin && len(p) <= cap(w.buf)-len(w.buf) {
		w.buf = append(w.buf, p...)
		return
	}
	if len(p) < directMin {
		w.flush()
		w.buf = append(w.buf, p...)
		return
	}
	first := p[:min(len(p), writeChunk)]
	w.iovArr[0], w.iovArr[1] = w.buf, first
	w.iov = w.iovArr[:]
	w.begin()
	_, w.err = w.s.Writev(&w.iov)
	w.end()
	w.iovArr[0], w.iovArr[1] = nil, nil
	w.buf = w.buf[:0]
	for rest := p[len(first):]; len(rest) > 0 && w.err == nil; {
		k := min(len(rest), writeChunk)
		w.begin()
		_, w.err = w.s.Write(rest[:k])
		w.end()
		rest = rest[k:]
	}
}

func (w *frameWriter) flush() error {
	if len(w.buf) > 0 && w.err == nil {
		w.begin()
		_, w.err = w.s.Write(w.buf)
		w.end()
	}
	w.buf = w.buf[:0]
	return w.err
}
