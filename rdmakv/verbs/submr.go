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
// window uses them.
const maxIdleSubMRs = 256

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
	idle uint64 // when refs last fell to 0, in subCache ticks
}

type subKey struct{ off, n int }

// subCache is a region's window MRs by range.
type subCache struct {
	mu     sync.Mutex
	m      map[subKey]*subMR
	idle   int
	tick   uint64
	closed bool
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
		if s.refs == 0 {
			sc.idle--
		}
		s.refs++
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
		if s.refs == 0 {
			sc.idle--
		}
		s.refs++
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
// deregistered.
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
	sc.tick++
	s.idle = sc.tick
	sc.idle++
	if sc.idle <= maxIdleSubMRs {
		return
	}
	var old *subMR
	for _, e := range sc.m {
		if e.refs == 0 && (old == nil || e.idle < old.idle) {
			old = e
		}
	}
	delete(sc.m, old.key)
	sc.idle--
	C.ibv_dereg_mr(old.mr)
}

// closeSubs deregisters the idle window MRs before the region goes; any
// still in use are deregistered when given back.
func (r *region) closeSubs() {
	sc := &r.subs
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.closed = true
	for k, s := range sc.m {
		if s.refs == 0 {
			delete(sc.m, k)
			C.ibv_dereg_mr(s.mr)
		}
	}
	sc.idle = 0
}
