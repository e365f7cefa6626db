package tcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// readLoop is the reader goroutine: the only one that reads the socket and
// the only one that calls the Handler.
func (c *conn) readLoop() {
	err := c.readFrames()
	for err == errHandedOver {
		err = c.lend() // callers read from now on (callerreads.go)
	}
	c.closeWith(err, nil) // no-op when a cause is already recorded
	if c.draining {
		// Again: a caller reading may have moved the deadline since.
		_ = c.nc.SetReadDeadline(c.drainBy)
		_, _ = io.Copy(io.Discard, c.nc) // until the peer hangs up or errorGrace passes
	}
	c.finish()
}

// protocolError closes the connection with an ERROR frame for a peer that
// broke the framing rules.
func (c *conn) protocolError(err error) error {
	err = fmt.Errorf("tcp: %s: %w", c.remote, err)
	c.closeWith(err, &header{op: opError, imm: reasonProtocol})
	return err
}

func (c *conn) readFrames() error {
	var hb [headerSize]byte
	for {
		if c.isClosing() {
			return nil
		}
		if c.handedOver.Load() {
			return errHandedOver
		}
		if c.guarded {
			c.awaitWhole()
		}
		if n, err := c.readHeader(hb[:]); err != nil {
			return c.headerErr(n, err)
		}
		h, err := decodeHeader(hb[:])
		if err != nil {
			return c.protocolError(err)
		}
		if err := c.handle(&h); err != nil {
			return err
		}
		if c.guarded {
			c.took()
		}
	}
}

// headerErr names a failed read of a header of which n bytes arrived.
func (c *conn) headerErr(n int, err error) error {
	if n == 0 && errors.Is(err, io.EOF) {
		return errPeerClosed
	}
	if n == 0 && errors.Is(err, syscall.ECONNRESET) { // as a server reset one it refused
		return errPeerReset
	}
	if n > 0 && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) {
		return c.protocolError(fmt.Errorf("truncated frame header: %d of %d bytes", n, headerSize))
	}
	return c.readErr(err)
}

// readHeader reads a frame header. The first is read from the socket
// itself and the stream buffer made after it, so a peer that connects and
// says nothing costs no buffer.
func (c *conn) readHeader(hb []byte) (int, error) {
	if c.br != nil {
		return io.ReadFull(c.br, hb)
	}
	n, err := io.ReadFull(c.src, hb)
	if err == nil {
		c.br = bufio.NewReaderSize(c.src, readBufSize)
	}
	return n, err
}

// readErr names a failed read; after a local close it is no news.
func (c *conn) readErr(err error) error {
	if c.isClosing() {
		return nil
	}
	if errors.Is(err, net.ErrClosed) {
		return transport.ErrClosed
	}
	return fmt.Errorf("tcp: read from %s: %w", c.remote, err)
}

// payloadErr names a payload cut short.
func (c *conn) payloadErr(h *header, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return c.protocolError(fmt.Errorf("truncated frame: %s promised %d payload bytes", opName(h.op), h.len))
	}
	return c.readErr(err)
}

// readPayload fills dst from the stream: the bytes already buffered are
// copied, the rest of a large payload is read straight into dst.
func (c *conn) readPayload(dst []byte) error {
	if n := min(c.br.Buffered(), len(dst)); n > 0 {
		_, _ = c.br.Read(dst[:n]) // cannot fail: the bytes are buffered
		dst = dst[n:]
	}
	if len(dst) == 0 {
		return nil
	}
	for {
		var n int
		var err error
		if len(dst) < directMin {
			n, err = io.ReadFull(c.br, dst)
		} else {
			n, err = io.ReadFull(c.src, dst) // the buffer is empty, so no bytes are skipped
		}
		// A failed read has taken every buffered byte, so the buffer is
		// still empty if the read goes on.
		if err == nil || !c.rearmMidFrame(err) {
			return err
		}
		dst = dst[n:]
	}
}

func (c *conn) handle(h *header) error {
	switch h.op {
	case opSend:
		return c.onSend(h)
	case opWrite, opWriteImm:
		return c.onWrite(h)
	case opReadReq:
		if err := c.rq.push(response{op: opReadReq, wrid: h.wrid, addr: h.addr, rkey: h.rkey, n: h.len}); err != nil {
			return c.protocolError(err)
		}
		return nil
	case opWriteAck:
		s := c.ops.claim(h.wrid, 1<<opWrite|1<<opWriteImm)
		if s == nil {
			return c.protocolError(fmt.Errorf("WRITE_ACK for unknown wrid %#x", h.wrid))
		}
		s.finish(nil)
		return nil
	case opReadResp:
		return c.onReadResp(h)
	case opError:
		return c.onError(h)
	}
	return c.protocolError(fmt.Errorf("unexpected frame op %#x", h.op))
}

func (c *conn) onSend(h *header) error {
	if int64(h.len) > int64(c.recv.size) {
		err := fmt.Errorf("%w: SEND of %d bytes from %s, receive buffers hold %d",
			transport.ErrTooLarge, h.len, c.remote, c.recv.size)
		c.closeWith(err, &header{op: opError, len: h.len, imm: reasonTooLarge})
		return err
	}
	slot, ok := c.takeSlot()
	if !ok {
		return nil
	}
	buf := c.recv.buf(slot)[:h.len]
	if err := c.readPayload(buf); err != nil {
		c.recv.free <- slot
		return c.payloadErr(h, err)
	}
	m := c.recv.take(slot)
	m.Kind, m.Data, m.Imm, m.Len = transport.KindRecv, buf, 0, int(h.len)
	c.deliver(m)
	return nil
}

// takeSlot waits for a free receive buffer: with all of them held by the
// handler the reader stops, and the peer stalls behind it, as on RNR.
func (c *conn) takeSlot() (int, bool) {
	select {
	case s := <-c.recv.free:
		return s, true
	default:
	}
	select {
	case s := <-c.recv.free:
		return s, true
	case <-c.closing:
		return 0, false
	}
}

func (c *conn) deliver(m *transport.Message) {
	if c.h == nil {
		m.Release()
		return
	}
	c.inCallback.Store(true)
	c.h.Deliver(c, m)
	c.inCallback.Store(false)
}

// onWrite places a WRITE or WRITE_IMM payload straight into the target
// memory, then owes the initiator a WRITE_ACK.
func (c *conn) onWrite(h *header) error {
	p, dst, err := c.lookup(h.op, h.rkey, h.addr, uint64(h.len), transport.AccessRemoteWrite)
	if err != nil {
		return c.refuse(h, err)
	}
	slot := -1
	if h.op == opWriteImm {
		// Wait for a receive buffer without pinning the target, so the
		// handler may close the region or revoke the window while it holds
		// every buffer.
		p.release()
		var ok bool
		if slot, ok = c.takeSlot(); !ok {
			return nil
		}
		if p, dst, err = c.lookup(h.op, h.rkey, h.addr, uint64(h.len), transport.AccessRemoteWrite); err != nil {
			c.recv.free <- slot
			return c.refuse(h, err)
		}
	}
	err = c.readPayload(dst)
	p.release()
	if err != nil {
		if slot >= 0 {
			c.recv.free <- slot
		}
		return c.payloadErr(h, err)
	}
	if err := c.rq.push(response{op: opWriteAck, wrid: h.wrid}); err != nil {
		return c.protocolError(err)
	}
	if slot >= 0 {
		msg := c.recv.take(slot)
		msg.Kind, msg.Data, msg.Imm, msg.Len = transport.KindWriteImm, nil, h.imm, int(h.len)
		c.deliver(msg)
	}
	return nil
}

// refuse closes the connection over a one-sided access the lookup refused,
// telling the initiator which op and why.
func (c *conn) refuse(h *header, err error) error {
	ef := err.(*accessFault).errorFrame(h.wrid)
	c.closeWith(err, &ef)
	return err
}

// onReadResp copies a READ_RESP payload into the initiator's destination.
func (c *conn) onReadResp(h *header) error {
	s := c.ops.claim(h.wrid, 1<<opReadReq)
	if s == nil {
		return c.protocolError(fmt.Errorf("READ_RESP for unknown wrid %#x", h.wrid))
	}
	if int(h.len) != len(s.dst) {
		err := c.protocolError(fmt.Errorf("READ_RESP of %d bytes for a READ of %d", h.len, len(s.dst)))
		s.finish(c.opErr)
		return err
	}
	if err := c.readPayload(s.dst); err != nil {
		err = c.payloadErr(h, err)
		c.closeWith(err, nil)
		s.finish(c.opErr)
		return err
	}
	s.finish(nil)
	return nil
}

// onError takes the peer's refusal: the op it names fails with the fault,
// the connection closes with it.
func (c *conn) onError(h *header) error {
	var err error
	switch h.imm {
	case reasonKey, reasonAddr, reasonLen, reasonAccess:
		f := &accessFault{reason: h.imm, rkey: h.rkey, addr: h.addr, n: uint64(h.len), remote: true}
		if s := c.ops.claim(h.wrid, 1<<opWrite|1<<opWriteImm|1<<opReadReq); s != nil {
			f.op = s.op
			s.finish(f)
		}
		err = f
	case reasonTooLarge:
		err = fmt.Errorf("%w: peer %s refused a SEND of %d bytes", transport.ErrTooLarge, c.remote, h.len)
	default:
		err = fmt.Errorf("tcp: peer %s closed the connection: %s", c.remote, reasonName(h.imm))
	}
	c.closeWith(err, nil)
	return err
}
