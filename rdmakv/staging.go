package rdmakv

import (
	"fmt"
	"sync"

	"github.com/kvbench/kvbench/rdmakv/internal/buddy"
	"github.com/kvbench/kvbench/rdmakv/transport"
)

// staging is the client's registered memory for rendezvous payloads: set
// values are copied here before the WRITE_WITH_IMM, get values are READ
// here and viewed by Value.Bytes. A buddy allocator carves it up. When it
// is full (or a value is larger than it), a temporary region is registered
// for that one request: slower, but the request succeeds.
type staging struct {
	conn   transport.Conn
	region transport.Region
	alloc  *buddy.Allocator

	// life is held for reading while a Set copies its value in and for
	// writing by seal. The connection's Close unmaps this memory (the
	// transport frees a closed connection's regions), so a copy under way
	// must finish before Close starts, and none may start after.
	life   sync.RWMutex
	sealed bool

	mu          sync.Mutex
	outstanding int // blocks handed out and not yet put back
	closed      bool
}

// stageBuf is one staging block (or a temporary region when temp).
type stageBuf struct {
	region transport.Region
	off, n int
	temp   bool
}

func (b stageBuf) bytes() []byte { return b.region.Bytes()[b.off : b.off+b.n : b.off+b.n] }

func newStaging(conn transport.Conn, size int) (*staging, error) {
	size = (size + poolMinBlock - 1) &^ (poolMinBlock - 1)
	a, err := buddy.New(size, poolMinBlock)
	if err != nil {
		return nil, err
	}
	r, err := conn.Register(size, transport.AccessLocal)
	if err != nil {
		return nil, fmt.Errorf("register a %d-byte staging region: %w", size, err)
	}
	return &staging{conn: conn, region: r, alloc: a}, nil
}

func (st *staging) get(n int) (stageBuf, error) {
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return stageBuf{}, transport.ErrClosed
	}
	st.outstanding++
	st.mu.Unlock()
	if off, err := st.alloc.Alloc(n); err == nil {
		return stageBuf{region: st.region, off: off, n: n}, nil
	}
	r, err := st.conn.Register(n, transport.AccessLocal)
	if err != nil {
		st.done()
		return stageBuf{}, fmt.Errorf("register a temporary %d-byte region (staging full): %w", n, err)
	}
	return stageBuf{region: r, n: n, temp: true}, nil
}

// fill copies p into b, unless the client is closing.
func (st *staging) fill(b stageBuf, p []byte) error {
	st.life.RLock()
	defer st.life.RUnlock()
	if st.sealed {
		return transport.ErrClosed
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
	if b.temp {
		_ = b.region.Close()
	} else {
		_, _ = st.alloc.Free(b.off)
	}
	st.done()
}

func (st *staging) done() {
	st.mu.Lock()
	st.outstanding--
	last := st.closed && st.outstanding == 0
	st.mu.Unlock()
	if last {
		_ = st.region.Close()
	}
}

// close deregisters the region once every block handed out is back. The
// transport tears down a closed connection's memory anyway, so this only
// keeps Release of a Value that outlived its client harmless; its bytes
// must not be read after Close.
func (st *staging) close() {
	st.mu.Lock()
	st.closed = true
	last := st.outstanding == 0
	st.mu.Unlock()
	if last {
		_ = st.region.Close()
	}
}
