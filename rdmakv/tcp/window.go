package tcp

import (
	"fmt"
	"sync"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// accessFault is a refused one-sided access, either found here (the peer
// asked for it) or reported by the peer in an ERROR frame.
type accessFault struct {
	reason uint32
	op     byte
	rkey   uint32
	addr   uint64
	n      uint64
	remote bool // reported by the peer about our own op
}

func (f *accessFault) Error() string {
	who := "refused peer's"
	if f.remote {
		who = "peer refused"
	}
	return fmt.Sprintf("%v: %s %s: %s (rkey %#x addr %#x len %d)",
		transport.ErrRemoteAccess, who, opName(f.op), reasonName(f.reason), f.rkey, f.addr, f.n)
}

func (f *accessFault) Unwrap() error { return transport.ErrRemoteAccess }

// errorFrame is the ERROR frame that tells the initiator about the fault.
func (f *accessFault) errorFrame(wrid uint64) header {
	return header{op: opError, wrid: wrid, addr: f.addr, rkey: f.rkey, len: uint32(f.n), imm: f.reason}
}

// pin holds what an access uses while its bytes move: the mapping (so the
// region is not unmapped) and, for a window, the window's use count (so
// Revoke waits).
type pin struct {
	m   *mapping
	use *sync.WaitGroup
}

func (p pin) release() {
	p.m.release()
	if p.use != nil {
		p.use.Done()
	}
}

// lookup resolves a one-sided access by the peer of c: the key must name a
// region of c's domain, or a window granted to c; the access right must be
// there; [addr, addr+n) must lie inside. On success the memory is pinned
// until the caller releases the pin.
func (c *conn) lookup(op byte, rkey uint32, addr, n uint64, want transport.Access) (pin, []byte, error) {
	c.pd.mu.RLock()
	e, ok := c.pd.keys[rkey]
	if ok && e.inUse != nil {
		e.inUse.Add(1) // under the lock, so a Revoke after this waits for us
	}
	c.pd.mu.RUnlock()
	fault := func(reason uint32) (pin, []byte, error) {
		if ok && e.inUse != nil {
			e.inUse.Done()
		}
		return pin{}, nil, &accessFault{reason: reason, op: op, rkey: rkey, addr: addr, n: n}
	}
	if !ok || (e.owner != nil && e.owner != c) {
		return fault(reasonKey)
	}
	if e.access&want == 0 {
		return fault(reasonAccess)
	}
	// Subtractions only, so no sum can wrap past 2^64.
	start := e.r.base + e.off
	if addr < start || addr-start > e.n {
		return fault(reasonAddr)
	}
	off := addr - start
	if n > e.n-off {
		return fault(reasonLen)
	}
	m := e.r.m
	if !m.acquire() {
		return fault(reasonKey) // closed since the lookup
	}
	at := e.off + off
	return pin{m: m, use: e.inUse}, m.mem[at : at+n], nil
}

// Grant opens a window on r[off:off+n] for this connection's peer alone.
func (c *conn) Grant(r transport.Region, off, n int, access transport.Access) (uint32, error) {
	if c.isClosing() {
		return 0, c.opErr
	}
	return c.pd.grant(c, r, off, n, access)
}

// Revoke closes a window granted on this connection. Later accesses fail;
// Revoke returns only once accesses already past their lookup are done, so
// the caller may reuse the memory at once.
func (c *conn) Revoke(rkey uint32) error {
	return c.pd.revoke(c, rkey)
}
