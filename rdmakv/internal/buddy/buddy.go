// Package buddy is a binary buddy allocator over a byte range it does not
// own (a registered memory region). It hands out offsets, never memory, so
// it can manage RDMA-visible memory without keeping metadata inside it.
//
// The state is a complete binary tree stored in one byte slice: each node
// holds 1 + the order of the largest free block in its subtree (0 = none).
// Alloc and Free are O(log n) and allocate nothing; the tree costs two bytes
// per minimum block.
package buddy

import (
	"errors"
	"fmt"
	"math/bits"
	"sync"
)

// ErrNoSpace means no free block is large enough.
var ErrNoSpace = errors.New("buddy: no free block large enough")

// ErrBadFree means Free was given an offset that is not the start of an
// allocated block.
var ErrBadFree = errors.New("buddy: offset is not an allocated block")

// Allocator manages [0, Size()) in power-of-two blocks of at least MinBlock
// bytes. It is safe for concurrent use.
type Allocator struct {
	mu       sync.Mutex
	size     int
	minShift uint
	leaves   int     // power of two >= size/minBlock
	top      uint8   // order of the root
	tree     []uint8 // 1-based heap; tree[i] = 1 + largest free order below i, 0 = none
	used     int     // bytes in allocated blocks
}

// New manages size bytes in blocks of at least minBlock bytes. minBlock must
// be a power of two and size a positive multiple of it. A size that is not
// a power of two is fine: the tail past size is never handed out.
func New(size, minBlock int) (*Allocator, error) {
	if minBlock <= 0 || minBlock&(minBlock-1) != 0 {
		return nil, fmt.Errorf("buddy: minimum block %d is not a power of two", minBlock)
	}
	if size <= 0 || size%minBlock != 0 {
		return nil, fmt.Errorf("buddy: size %d is not a positive multiple of the minimum block %d", size, minBlock)
	}
	n := size / minBlock
	leaves := 1
	for leaves < n {
		leaves <<= 1
	}
	a := &Allocator{
		size:     size,
		minShift: uint(bits.TrailingZeros(uint(minBlock))),
		leaves:   leaves,
		top:      uint8(bits.TrailingZeros(uint(leaves))),
		tree:     make([]uint8, 2*leaves),
	}
	for i := 0; i < leaves; i++ {
		if i < n {
			a.tree[leaves+i] = 1
		}
	}
	for i := leaves - 1; i >= 1; i-- {
		a.tree[i] = a.merged(i)
	}
	return a, nil
}

// order of node i (leaves are order 0).
func (a *Allocator) order(i int) uint8 {
	return a.top - uint8(bits.Len(uint(i))-1)
}

// merged computes node i's value from its children: the whole block if
// both halves are wholly free, else the larger half.
func (a *Allocator) merged(i int) uint8 {
	l, r := a.tree[2*i], a.tree[2*i+1]
	o := a.order(i)
	if l == o && r == o { // both children free at order o-1, stored as o
		return o + 1
	}
	return max(l, r)
}

// Size is the number of bytes managed.
func (a *Allocator) Size() int { return a.size }

// MinBlock is the smallest block handed out.
func (a *Allocator) MinBlock() int { return 1 << a.minShift }

// Used is the number of bytes in allocated blocks (block sizes, not
// request sizes).
func (a *Allocator) Used() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.used
}

// BlockSize is the size of the block Alloc(n) would return.
func (a *Allocator) BlockSize(n int) int { return 1 << (a.minShift + uint(a.orderFor(n))) }

func (a *Allocator) orderFor(n int) int {
	blocks := (n + (1 << a.minShift) - 1) >> a.minShift
	if blocks <= 1 {
		return 0
	}
	return bits.Len(uint(blocks - 1))
}

// Alloc returns the offset of a free block of at least n bytes (n > 0).
func (a *Allocator) Alloc(n int) (int, error) {
	if n <= 0 {
		return 0, fmt.Errorf("buddy: allocation of %d bytes", n)
	}
	o := a.orderFor(n)
	if o > int(a.top) {
		return 0, fmt.Errorf("%w: %d bytes is larger than the whole range", ErrNoSpace, n)
	}
	want := uint8(o) + 1
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tree[1] < want {
		return 0, ErrNoSpace
	}
	i := 1
	for a.order(i) != uint8(o) {
		// Prefer the child that fits most snugly, to keep large blocks whole.
		l, r := a.tree[2*i], a.tree[2*i+1]
		switch {
		case l >= want && (r < want || l <= r):
			i = 2 * i
		default:
			i = 2*i + 1
		}
	}
	a.tree[i] = 0
	for p := i / 2; p >= 1; p /= 2 {
		a.tree[p] = a.merged(p)
	}
	a.used += 1 << (a.minShift + uint(o))
	off := (i<<o - a.leaves) << a.minShift
	return off, nil
}

// Free returns the block starting at off and reports its size.
func (a *Allocator) Free(off int) (int, error) {
	if off < 0 || off >= a.size || off&(1<<a.minShift-1) != 0 {
		return 0, fmt.Errorf("%w: offset %d", ErrBadFree, off)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	// Descendants of an allocated node keep their free values, so the first
	// zero on the way up from the leaf is the allocated block.
	i := a.leaves + off>>a.minShift
	for i >= 1 && a.tree[i] != 0 {
		i /= 2
	}
	if i < 1 {
		return 0, fmt.Errorf("%w: offset %d", ErrBadFree, off)
	}
	o := a.order(i)
	if (i<<o-a.leaves)<<a.minShift != off {
		return 0, fmt.Errorf("%w: offset %d is inside a block", ErrBadFree, off)
	}
	a.tree[i] = o + 1
	for p := i / 2; p >= 1; p /= 2 {
		a.tree[p] = a.merged(p)
	}
	size := 1 << (a.minShift + uint(o))
	a.used -= size
	return size, nil
}
