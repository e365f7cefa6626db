package tcp

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

const remoteAccess = transport.AccessRemoteRead | transport.AccessRemoteWrite

// pd is a protection domain: the regions registered in it and the memory
// windows granted on them. Every key, region or window, is unique within
// the domain, so one map answers every lookup.
type pd struct {
	mu      sync.RWMutex
	keys    map[uint32]keyEntry
	regions []*region // registration order, for reverse-order teardown
	closed  bool
	idleUse []*sync.WaitGroup // drained window use counts, so Grant allocates nothing
}

// keyEntry is what an rkey opens: a whole region (owner nil) or a window
// of it visible to one connection only.
type keyEntry struct {
	r      *region
	owner  *conn
	off, n uint64
	access transport.Access
	// inUse counts accesses through a window that are moving bytes. Revoke
	// waits for it: the owner frees or reuses the memory once Revoke
	// returns, so a READ still streaming out or a WRITE still landing would
	// otherwise tear or corrupt whatever is stored there next.
	inUse *sync.WaitGroup
}

func newPD() *pd { return &pd{keys: make(map[uint32]keyEntry)} }

// newKeyLocked draws a random non-zero key not in use. Keys are random so a
// peer cannot guess a window it was not given.
func (p *pd) newKeyLocked() uint32 {
	for {
		k := rand.Uint32()
		if _, used := p.keys[k]; k != 0 && !used {
			return k
		}
	}
}

func (p *pd) register(size int, access transport.Access) (*region, error) {
	if access&^transport.AccessKnown != 0 {
		return nil, fmt.Errorf("tcp: unknown access bits %#x", uint8(access))
	}
	m, err := newMapping(size)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = m.unmap()
		return nil, transport.ErrClosed
	}
	r := &region{m: m, base: m.addr(), access: access, pd: p}
	r.rkey = p.newKeyLocked()
	own := access & remoteAccess // what the region's own key grants
	if access&transport.AccessGrantOnly != 0 {
		own = 0 // windows are always there on tcp
	}
	p.keys[r.rkey] = keyEntry{r: r, n: uint64(size), access: own}
	p.regions = append(p.regions, r)
	return r, nil
}

// forget drops a region's key, its windows and its place in the list.
func (p *pd) forget(r *region) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, e := range p.keys {
		if e.r == r {
			delete(p.keys, k)
		}
	}
	if i := slices.Index(p.regions, r); i >= 0 {
		p.regions = slices.Delete(p.regions, i, i+1)
	}
}

// close frees every region still registered, newest first.
func (p *pd) close() {
	p.mu.Lock()
	p.closed = true
	rs := slices.Clone(p.regions)
	p.mu.Unlock()
	for i := len(rs) - 1; i >= 0; i-- {
		_ = rs[i].Close()
	}
}

func (p *pd) grant(owner *conn, lr transport.Region, off, n int, access transport.Access) (uint32, error) {
	r, ok := lr.(*region)
	if !ok || r == nil {
		return 0, fmt.Errorf("tcp: grant on region %T not registered by the tcp transport", lr)
	}
	if r.pd != p {
		return 0, fmt.Errorf("tcp: grant on a region of another protection domain")
	}
	if access == 0 || access&^remoteAccess != 0 {
		return 0, fmt.Errorf("tcp: grant access %#x must be remote read and/or write", uint8(access))
	}
	size := len(r.m.mem)
	if off < 0 || n < 0 || off > size || n > size-off {
		return 0, fmt.Errorf("tcp: grant range [%d, +%d) outside region of %d bytes", off, n, size)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, live := p.keys[r.rkey]; !live {
		return 0, errRegionClosed
	}
	var use *sync.WaitGroup
	if i := len(p.idleUse) - 1; i >= 0 {
		use, p.idleUse = p.idleUse[i], p.idleUse[:i]
	} else {
		use = new(sync.WaitGroup)
	}
	k := p.newKeyLocked()
	p.keys[k] = keyEntry{r: r, owner: owner, off: uint64(off), n: uint64(n), access: access, inUse: use}
	return k, nil
}

// revoke withdraws a window, then waits for accesses already through it.
// Accesses join inUse only under p.mu while the key is present, so none
// can join after the delete.
func (p *pd) revoke(owner *conn, key uint32) error {
	p.mu.Lock()
	e, ok := p.keys[key]
	if !ok || e.owner != owner {
		p.mu.Unlock()
		return fmt.Errorf("tcp: revoke: no window with key %#x on this connection", key)
	}
	delete(p.keys, key)
	p.mu.Unlock()
	e.inUse.Wait()
	// Drained and unreachable through the map: safe to hand to a new window.
	p.mu.Lock()
	if len(p.idleUse) < maxIdleUse {
		p.idleUse = append(p.idleUse, e.inUse)
	}
	p.mu.Unlock()
	return nil
}

// maxIdleUse bounds the recycled use counts kept per domain.
const maxIdleUse = 1024

// dropWindows revokes every window a closing connection still holds.
func (p *pd) dropWindows(owner *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, e := range p.keys {
		if e.owner == owner {
			delete(p.keys, k)
		}
	}
}
