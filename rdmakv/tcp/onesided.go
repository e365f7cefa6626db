package tcp

import (
	"fmt"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// Write is an RDMA WRITE; it returns once the target has placed the data.
func (c *conn) Write(local transport.Region, off, n int, raddr uint64, rkey uint32) error {
	return c.oneSided(opWrite, local, off, n, raddr, rkey, 0)
}

// WriteImm is an RDMA WRITE_WITH_IMM; it returns once the target has
// placed the data and taken a receive buffer for the completion.
func (c *conn) WriteImm(local transport.Region, off, n int, raddr uint64, rkey uint32, imm uint32) error {
	return c.oneSided(opWriteImm, local, off, n, raddr, rkey, imm)
}

// Read is an RDMA READ; it returns once the data is in local memory.
func (c *conn) Read(local transport.Region, off, n int, raddr uint64, rkey uint32) error {
	return c.oneSided(opReadReq, local, off, n, raddr, rkey, 0)
}

// oneSided posts a request and waits for its completion. The local memory
// stays pinned until then, so closing the region waits for the op.
func (c *conn) oneSided(op byte, local transport.Region, off, n int, raddr uint64, rkey, imm uint32) error {
	r, err := localRegion(local, off, n)
	if err != nil {
		return err
	}
	if c.isClosing() {
		return c.opErr
	}
	ops := c.ops.ready()
	idx, ok := c.ops.take(ops, c.closing)
	if !ok {
		return c.opErr
	}
	defer ops.give(idx)
	if !r.m.acquire() {
		return errRegionClosed
	}
	defer r.m.release()

	s := &ops.slots[idx]
	gen := s.gen.Add(1)
	if gen == 0 {
		gen = s.gen.Add(1) // keep wr ids non-zero
	}
	s.op = op
	s.dst = nil
	var payload []byte
	if op == opReadReq {
		s.dst = r.m.mem[off : off+n]
	} else {
		payload = r.m.mem[off : off+n]
	}
	s.state.Store(slotPending)
	if c.isClosing() && s.state.CompareAndSwap(slotPending, slotIdle) {
		return c.opErr // closed before anyone could see the slot
	}

	if c.cfg.OpTimeout > 0 {
		s.timedOut.Store(false)
		s.timer.Reset(c.cfg.OpTimeout) // covers a write stuck on a full socket too
	}
	h := header{op: op, len: uint32(n), wrid: wrid(idx, gen), addr: raddr, rkey: rkey, imm: imm}
	c.wmu.Lock()
	c.w.header(&h)
	c.w.payload(payload) // large payloads go straight from the region
	werr := c.w.flush()
	c.wmu.Unlock()
	if werr != nil {
		c.closeWith(fmt.Errorf("tcp: write: %w", werr), nil) // completes the slot
	}

	if c.handedOver.Load() {
		// No reader goroutine reads the completion: this one does. Closing
		// and the op's timer both complete the slot, so the wait below ends.
		_ = c.Await(s.completed, time.Time{})
	}
	err = <-s.done
	if c.cfg.OpTimeout > 0 {
		s.timer.Stop()
		if s.timedOut.Load() {
			err = fmt.Errorf("%w: %s of %d bytes (rkey %#x addr %#x) not done after %v",
				transport.ErrTimeout, opName(op), n, rkey, raddr, c.cfg.OpTimeout)
		}
	}
	s.dst = nil
	s.state.Store(slotIdle)
	return err
}

// opTimedOut runs when an op's timer fires. Where the data stands is
// unknown, so the connection goes; closing it completes the op (a reader
// copying into it fails on the closed socket first).
func (c *conn) opTimedOut(s *opSlot) {
	if st := s.state.Load(); st != slotPending && st != slotClaimed {
		return
	}
	s.timedOut.Store(true)
	c.closeWith(fmt.Errorf("%w: one-sided op not done after %v", transport.ErrTimeout, c.cfg.OpTimeout), nil)
}
