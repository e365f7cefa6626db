package tcp

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// maxRegion bounds one registration; the frame len field is 32 bits, but a
// region may be larger and be accessed in pieces.
const maxRegion = 1 << 40

var errRegionClosed = errors.New("tcp: region is closed")

// mapping is anonymous mmap'd memory with a use count, so unmapping waits
// for every access in flight instead of pulling pages from under a copy.
type mapping struct {
	mem     []byte
	state   atomic.Int64 // users, plus closingBit once Close started
	drained chan struct{}
	once    sync.Once
	err     error
}

const closingBit = 1 << 62

func newMapping(size int) (*mapping, error) {
	if size <= 0 || size > maxRegion {
		return nil, fmt.Errorf("tcp: region size %d out of range (1..%d)", size, int64(maxRegion))
	}
	mem, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("tcp: mmap %d bytes: %w", size, err)
	}
	return &mapping{mem: mem, drained: make(chan struct{})}, nil
}

func (m *mapping) addr() uint64 { return uint64(uintptr(unsafe.Pointer(&m.mem[0]))) }

// acquire pins the memory; false once Close has begun.
func (m *mapping) acquire() bool {
	for {
		v := m.state.Load()
		if v&closingBit != 0 {
			return false
		}
		if m.state.CompareAndSwap(v, v+1) {
			return true
		}
	}
}

func (m *mapping) release() {
	if m.state.Add(-1) == closingBit {
		close(m.drained)
	}
}

// unmap refuses new users, waits for current ones, then frees the pages.
func (m *mapping) unmap() error {
	m.once.Do(func() {
		if old := m.state.Or(closingBit); old&^closingBit != 0 {
			<-m.drained
		}
		m.err = unix.Munmap(m.mem)
	})
	return m.err
}

// region is a registered memory region in a protection domain.
type region struct {
	m      *mapping
	base   uint64
	rkey   uint32
	access transport.Access
	pd     *pd
	once   sync.Once
	err    error
}

func (r *region) Bytes() []byte { return r.m.mem }
func (r *region) Addr() uint64  { return r.base }
func (r *region) RKey() uint32  { return r.rkey }
func (r *region) LKey() uint32  { return 0 }

// Close withdraws the key (and every window on the region) first, so no new
// remote access can start, then unmaps once accesses in flight are done.
func (r *region) Close() error {
	r.once.Do(func() {
		r.pd.forget(r)
		r.err = r.m.unmap()
	})
	return r.err
}

// localRegion checks that a Region handed to a one-sided op belongs to this
// transport and that [off, off+n) lies inside it.
func localRegion(lr transport.Region, off, n int) (*region, error) {
	r, ok := lr.(*region)
	if !ok || r == nil {
		return nil, fmt.Errorf("tcp: local region %T was not registered by the tcp transport", lr)
	}
	if off < 0 || n < 0 || off > len(r.m.mem) || n > len(r.m.mem)-off {
		return nil, fmt.Errorf("tcp: local range [%d, +%d) outside region of %d bytes", off, n, len(r.m.mem))
	}
	if n > maxFrame {
		return nil, fmt.Errorf("tcp: one-sided op of %d bytes exceeds %d", n, maxFrame)
	}
	return r, nil
}

const maxFrame = 1<<32 - 1
