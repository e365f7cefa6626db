package rdmakv

import (
	"fmt"
	"math/bits"
	"sync"
	"time"

	"github.com/kvbench/kvbench/rdmakv/internal/buddy"
	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Staging growth. A client registers no staging until its first rendezvous
// payload, then regions of at least stagingMin bytes, each at least twice
// the largest before it, up to WithStagingSize in all. Regions unused for
// stagingIdle are deregistered, so an idle client pins no staging memory.
const (
	stagingMin  = 64 << 10
	stagingIdle = 2 * time.Second
)

// staging is the client's registered memory for rendezvous payloads: set
// values are copied here before the WRITE_WITH_IMM, get values are READ
// here and viewed by Value.Bytes. A buddy allocator carves up each region.
// When the regions are full and the limit reached (or a value is larger
// than any region may be), a temporary region is registered for that one
// request: slower, but the request succeeds.
type staging struct {
	// conn maps Register's errors; the staging's own end (sealed,
	// closed) comes with the connection's and is reported as that.
	conn *clientConn
	max  int
	idle time.Duration

	// life is held for reading while a Set copies its value in and for
	// writing by seal. The connection's Close unmaps this memory (the
	// transport frees a closed connection's regions), so a copy under way
	// must finish before Close starts, and none may start after.
	life   sync.RWMutex
	sealed bool

	mu          sync.Mutex
	chunks      []*chunk
	total       int    // bytes registered in chunks
	outstanding int    // blocks handed out and not yet put back
	gets, seen  uint64 // gets so far, and as of the last idle check
	shrink      *time.Timer
	closed      bool
}

// chunk is one registered staging region and its allocator.
type chunk struct {
	region transport.Region
	alloc  *buddy.Allocator
}

// stageBuf is one staging block, or a temporary region when chunk is nil.
type stageBuf struct {
	region transport.Region
	chunk  *chunk
	off, n int
}

func (b stageBuf) bytes() []byte { return b.region.Bytes()[b.off : b.off+b.n : b.off+b.n] }

func newStaging(conn *clientConn, max int, idle time.Duration) *staging {
	return &staging{conn: conn, max: max &^ (poolMinBlock - 1), idle: idle}
}

func (st *staging) get(n int) (stageBuf, error) {
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return stageBuf{}, st.conn.closed()
	}
	st.outstanding++
	st.gets++
	for _, ch := range st.chunks {
		if ch.alloc.Size() < n {
			continue // Alloc would build an error to say so
		}
		if off, err := ch.alloc.Alloc(n); err == nil {
			st.mu.Unlock()
			return stageBuf{region: ch.region, chunk: ch, off: off, n: n}, nil
		}
	}
	ch, err := st.grow(n)
	if ch != nil {
		if off, aerr := ch.alloc.Alloc(n); aerr == nil {
			st.mu.Unlock()
			return stageBuf{region: ch.region, chunk: ch, off: off, n: n}, nil
		}
	}
	st.mu.Unlock()
	if err != nil {
		st.done()
		return stageBuf{}, err
	}
	r, err := st.conn.Register(n, transport.AccessLocal)
	if err != nil {
		st.done()
		return stageBuf{}, fmt.Errorf("register a temporary %d-byte region (staging full): %w", n, err)
	}
	return stageBuf{region: r, n: n}, nil
}

// grow registers a chunk for an n-byte block, or returns nil when the
// limit leaves no room for one (after dropping empty chunks to make room).
// It runs under mu.
func (st *staging) grow(n int) (*chunk, error) {
	size := max(stagingMin, 1<<bits.Len(uint(n-1)))
	for _, ch := range st.chunks {
		size = max(size, 2*ch.alloc.Size())
	}
	size = min(size, st.max)
	if size < n {
		return nil, nil
	}
	if st.total+size > st.max {
		st.dropEmpty()
		if st.total+size > st.max {
			return nil, nil
		}
	}
	a, err := buddy.New(size, poolMinBlock)
	if err != nil {
		return nil, err
	}
	r, err := st.conn.Register(size, transport.AccessLocal)
	if err != nil {
		return nil, fmt.Errorf("register a %d-byte staging region: %w", size, err)
	}
	ch := &chunk{region: r, alloc: a}
	st.chunks = append(st.chunks, ch)
	st.total += size
	if st.shrink == nil {
		st.shrink = time.AfterFunc(st.idle, st.idleCheck)
	} else if len(st.chunks) == 1 {
		st.shrink.Reset(st.idle)
	}
	return ch, nil
}

// dropEmpty deregisters every chunk with nothing handed out. Under mu.
func (st *staging) dropEmpty() {
	kept := st.chunks[:0]
	for _, ch := range st.chunks {
		if ch.alloc.Used() == 0 {
			_ = ch.region.Close()
			st.total -= ch.alloc.Size()
			continue
		}
		kept = append(kept, ch)
	}
	clear(st.chunks[len(kept):])
	st.chunks = kept
}

// idleCheck runs every idle period while chunks exist: after a period
// without a get, empty chunks go.
func (st *staging) idleCheck() {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return
	}
	if st.gets == st.seen {
		st.dropEmpty()
	}
	st.seen = st.gets
	if len(st.chunks) > 0 {
		st.shrink.Reset(st.idle)
	}
}

// registered is the staging memory registered now, in bytes.
func (st *staging) registered() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.total
}

// fill copies p into b, unless the client is closing.
func (st *staging) fill(b stageBuf, p []byte) error {
	st.life.RLock()
	defer st.life.RUnlock()
	if st.sealed {
		return st.conn.closed()
	}
	copy(b.bytes(), p)
	return nil
}

// seal waits for copies in progress and refuses later ones; Close calls
// it before closing the connection.
func (st *staging) seal() {
	st.life.Lock()
	st.sealed = true
	st.life.Unlock()
}

func (st *staging) put(b stageBuf) {
	if b.chunk == nil {
		_ = b.region.Close()
	} else {
		_, _ = b.chunk.alloc.Free(b.off)
	}
	st.done()
}

func (st *staging) done() {
	st.mu.Lock()
	st.outstanding--
	if st.closed && st.outstanding == 0 {
		st.release()
	}
	st.mu.Unlock()
}

// close deregisters the regions once every block handed out is back. The
// transport tears down a closed connection's memory anyway, so this only
// keeps Release of a Value that outlived its client harmless; its bytes
// must not be read after Close.
func (st *staging) close() {
	st.mu.Lock()
	st.closed = true
	if st.shrink != nil {
		st.shrink.Stop()
	}
	if st.outstanding == 0 {
		st.release()
	}
	st.mu.Unlock()
}

// release deregisters every chunk. Under mu, once closed.
func (st *staging) release() {
	for _, ch := range st.chunks {
		_ = ch.region.Close()
	}
	st.chunks, st.total = nil, 0
}
