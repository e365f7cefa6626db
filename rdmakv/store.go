package rdmakv

import (
	"sync"

	"github.com/kvbench/kvbench/rdmakv/internal/buddy"
)

// slot is one stored value: a block of the pool. A slot is immutable once
// committed; an overwrite commits a new slot, so rendezvous readers of the
// old one keep reading consistent bytes until they release it.
type slot struct {
	off, n  int
	block   bool // owns a pool block (false for empty values)
	version uint64
	readers int  // rendezvous get leases and inline sends in progress
	dead    bool // no longer in the map; freed when readers reaches 0
}

// entry is the map value; the indirection lets an overwrite replace the
// slot without re-inserting (and so re-allocating) the key string.
type entry struct{ cur *slot }

// store is the key -> slot map over the pool allocator. One mutex guards
// the map and the slots' reader counts; critical sections are a few field
// updates, never a copy or a send.
type store struct {
	mu      sync.Mutex
	items   map[string]*entry
	version uint64
	alloc   *buddy.Allocator
	free    []*slot // recycled slot records
}

func newStore(a *buddy.Allocator) *store {
	return &store{items: make(map[string]*entry), alloc: a}
}

// newSlot allocates a pool block of n bytes (none for n == 0).
func (s *store) newSlot(n int) (*slot, error) {
	off, block := 0, false
	if n > 0 {
		o, err := s.alloc.Alloc(n)
		if err != nil {
			return nil, err
		}
		off, block = o, true
	}
	s.mu.Lock()
	var sl *slot
	if k := len(s.free); k > 0 {
		sl = s.free[k-1]
		s.free = s.free[:k-1]
	} else {
		sl = new(slot)
	}
	s.mu.Unlock()
	*sl = slot{off: off, n: n, block: block}
	return sl, nil
}

// discard frees a slot that was never committed.
func (s *store) discard(sl *slot) {
	s.mu.Lock()
	sl.dead = true
	s.reclaimLocked(sl)
	s.mu.Unlock()
}

func (s *store) reclaimLocked(sl *slot) {
	if !sl.dead || sl.readers > 0 {
		return
	}
	if sl.block {
		// The offset came from this allocator, so Free cannot fail.
		_, _ = s.alloc.Free(sl.off)
		sl.block = false
	}
	s.free = append(s.free, sl)
}

// commit makes sl the value of key and returns its version. The old slot
// is freed once its readers are done.
func (s *store) commit(key []byte, sl *slot) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.version++
	sl.version = s.version
	if e, ok := s.items[string(key)]; ok {
		old := e.cur
		e.cur = sl
		old.dead = true
		s.reclaimLocked(old)
	} else {
		s.items[string(key)] = &entry{cur: sl}
	}
	return sl.version
}

// acquire returns key's current slot with a reader reference, or nil.
func (s *store) acquire(key []byte) *slot {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[string(key)]
	if !ok {
		return nil
	}
	e.cur.readers++
	return e.cur
}

// unref drops a reader reference taken by acquire.
func (s *store) unref(sl *slot) {
	s.mu.Lock()
	sl.readers--
	s.reclaimLocked(sl)
	s.mu.Unlock()
}

// remove deletes key; false if it was absent.
func (s *store) remove(key []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[string(key)]
	if !ok {
		return false
	}
	delete(s.items, string(key))
	e.cur.dead = true
	s.reclaimLocked(e.cur)
	return true
}
