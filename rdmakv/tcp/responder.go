package tcp

import (
	"fmt"
	"sync"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// maxQueued bounds the responses owed to a peer. An honest peer has at most
// its SendDepth ops outstanding; one that floods READ_REQs without reading
// the answers is dropped.
const maxQueued = 1 << 16

// response is work for the responder: a WRITE_ACK to send or a READ_REQ to
// serve.
type response struct {
	op   byte // opWriteAck or opReadReq
	wrid uint64
	addr uint64
	rkey uint32
	n    uint32
}

// responseQueue hands work from the reader to the responder without ever
// blocking the reader. Two slices are swapped so steady state allocates
// nothing.
type responseQueue struct {
	mu    sync.Mutex
	q     []response
	spare []response
	sig   chan struct{}
}

// init makes the signal only: the slices grow on the first response, so a
// connection that never serves one holds none.
func (rq *responseQueue) init() {
	rq.sig = make(chan struct{}, 1)
}

func (rq *responseQueue) push(r response) error {
	rq.mu.Lock()
	if len(rq.q) >= maxQueued {
		rq.mu.Unlock()
		return fmt.Errorf("peer has more than %d responses outstanding", maxQueued)
	}
	rq.q = append(rq.q, r)
	rq.mu.Unlock()
	select {
	case rq.sig <- struct{}{}:
	default:
	}
	return nil
}

func (rq *responseQueue) take() []response {
	rq.mu.Lock()
	items := rq.q
	rq.q = rq.spare[:0]
	rq.mu.Unlock()
	return items
}

func (rq *responseQueue) giveBack(items []response) {
	rq.mu.Lock()
	rq.spare = items[:0]
	rq.mu.Unlock()
}

// respond is the responder goroutine.
func (c *conn) respond() {
	defer close(c.rspDone)
	for {
		select {
		case <-c.rq.sig:
		case <-c.closing:
			return
		}
		items := c.rq.take()
		for i := range items {
			if c.isClosing() {
				return
			}
			if err := c.serve(&items[i]); err != nil {
				return
			}
		}
		c.wmu.Lock()
		err := c.w.flush()
		c.wmu.Unlock()
		if err != nil {
			c.closeWith(fmt.Errorf("tcp: write: %w", err), nil)
			return
		}
		c.rq.giveBack(items)
	}
}

// serve sends one response. A refused READ_REQ closes the connection with
// an ERROR frame naming the fault.
func (c *conn) serve(r *response) error {
	h := header{op: opWriteAck, wrid: r.wrid}
	var src []byte
	var p pin
	if r.op == opReadReq {
		var err error
		p, src, err = c.lookup(opReadReq, r.rkey, r.addr, uint64(r.n), transport.AccessRemoteRead)
		if err != nil {
			ef := err.(*accessFault).errorFrame(r.wrid)
			c.closeWith(err, &ef)
			return err
		}
		h = header{op: opReadResp, wrid: r.wrid, len: r.n}
	}
	c.wmu.Lock()
	c.w.header(&h)
	c.w.payload(src) // large payloads go straight from the region
	err := c.w.err
	c.wmu.Unlock()
	if p.m != nil {
		p.release()
	}
	if err != nil {
		c.closeWith(fmt.Errorf("tcp: write: %w", err), nil)
	}
	return err
}
