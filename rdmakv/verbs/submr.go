//go:build linux && cgo

package verbs

/*
#include "verbs.h"
*/
import "C"

import (
	"fmt"
	"sync"
)

// maxIdleSubMRs bounds the window MRs a region keeps registered while no
// window uses them (a variable so tests can make it small).
var maxIdleSubMRs = 256

// subMR is an MR over exactly one window's range of a region. rxe checks
// an access through a window against the MR beneath it rather than the
// window's own bounds, so each window there sits on an MR of its exact
// extent. Registering one pins its pages on every grant; value slots are
// reused, so the region keeps them for the same ranges to come back. An
// idle one grants nothing: it has no remote access of its own, only
// window binding.
type subMR struct {
	mr   *C.struct_ibv_mr
	key  subKey
	refs int
	// prev and next link it into subCache.idle while refs is 0.
	prev, next *subMR
}

type subKey struct{ off, n int }

// subCache is a region's window MRs by range. The idle ones are also on a
// list, longest idle first, so giving one back and evicting the oldest
// cost the same however many are cached.
type subCache struct {
	mu     sync.Mutex
	m      map[subKey]*subMR
	idle   subMR // sentinel of the idle list: idle.next is the oldest
	nidle  int
	closed bool
}

func (sc *subCache) pushIdle(s *subMR) {
	if sc.idle.next == nil {
		sc.idle.next, sc.idle.prev = &sc.idle, &sc.idle
	}
	s.prev, s.next = sc.idle.prev, &sc.idle
	s.prev.next, sc.idle.prev = s, s
	sc.nidle++
}

func (sc *subCache) unlinkIdle(s *subMR) {
	s.prev.next, s.next.prev = s.next, s.prev
	s.prev, s.next = nil, nil
	sc.nidle--
}

// use takes a reference on a cached MR; mu is held.
func (sc *subCache) use(s *subMR) {
	if s.refs == 0 {
		sc.unlinkIdle(s)
	}
	s.refs++
}

// takeSub returns an MR covering r[off:off+n], registering one if none is
// cached.
func (r *region) takeSub(off, n int) (*subMR, error) {
	sc := &r.subs
	k := subKey{off, n}
	sc.mu.Lock()
	if sc.closed {
		sc.mu.Unlock()
		return nil, fmt.Errorf("verbs: grant: region closed")
	}
	if s := sc.m[k]; s != nil {
		sc.use(s)
		sc.mu.Unlock()
		return s, nil
	}
	sc.mu.Unlock()
	flags := C.IBV_ACCESS_LOCAL_WRITE | C.IBV_ACCESS_MW_BIND
	mr, err := C.kv_mr_open(r.dev.d, C.uint64_t(r.addr+uint64(off)), C.uint64_t(n), C.int(flags))
	if mr == nil {
		return nil, fmt.Errorf("verbs: grant: register window range: %w", err)
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.closed {
		C.ibv_dereg_mr(mr)
		return nil, fmt.Errorf("verbs: grant: region closed")
	}
	if s := sc.m[k]; s != nil { // registered meanwhile by another grant
		C.ibv_dereg_mr(mr)
		sc.use(s)
		return s, nil
	}
	if sc.m == nil {
		sc.m = map[subKey]*subMR{}
	}
	s := &subMR{mr: mr, key: k, refs: 1}
	sc.m[k] = s
	return s, nil
}

// putSub gives back a window's MR; nothing may be bound to it through
// that window any more. Past maxIdleSubMRs idle ones, the longest idle is
// deregistered (under mu, so that closeSubs returns only once no MR of
// the region is left).
func (r *region) putSub(s *subMR) {
	sc := &r.subs
	sc.mu.Lock()
	defer sc.mu.Unlock()
	s.refs--
	if s.refs > 0 {
		return
	}
	if sc.closed {
		delete(sc.m, s.key)
		C.ibv_dereg_mr(s.mr)
		return
	}
	sc.pushIdle(s)
	if sc.nidle > maxIdleSubMRs {
		old := sc.idle.next
		sc.unlinkIdle(old)
		delete(sc.m, old.key)
		C.ibv_dereg_mr(old.mr)
	}
}

// closeSubs deregisters the idle window MRs before the region goes; any
// still in use are deregistered when given back.
func (r *region) closeSubs() {
	sc := &r.subs
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.closed = true
	for sc.nidle > 0 {
		s := sc.idle.next
		sc.unlinkIdle(s)
		delete(sc.m, s.key)
		C.ibv_dereg_mr(s.mr)
	}
}
