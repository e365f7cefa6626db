package tcp

import (
	"encoding/binary"
	"fmt"
)

// Frame format of the TCP transport.
//
// The stream in each direction is a sequence of frames. A frame is a fixed
// 32-byte little-endian header, followed by a payload for the ops that
// carry one:
//
//	offset  size  field   meaning
//	     0     1  op      frame type (below)
//	     1     1  flags   reserved, must be 0
//	     2     2  magic   0x766b (the bytes "kv"), catches a stream out of step
//	     4     4  len     payload bytes for SEND, WRITE, WRITE_IMM, READ_RESP;
//	                      bytes asked for by READ_REQ; the refused length in
//	                      ERROR; 0 for WRITE_ACK
//	     8     8  wrid    work request id chosen by the initiator of a
//	                      one-sided op, echoed by WRITE_ACK, READ_RESP, ERROR;
//	                      0 for SEND
//	    16     8  addr    remote virtual address of a one-sided op (ERROR
//	                      echoes the refused one)
//	    24     4  rkey    remote key of a one-sided op (ERROR echoes it)
//	    28     4  imm     immediate of WRITE_IMM; reason code of ERROR
//
// Ops:
//
//	1 SEND       two-sided message; len payload bytes land in one receive
//	             buffer of the peer (len > the peer's MaxMessage is fatal)
//	2 WRITE      RDMA WRITE of len payload bytes to (addr, rkey)
//	3 WRITE_IMM  as WRITE, then the target delivers a write-with-immediate
//	             completion carrying imm and len (consumes a receive buffer)
//	4 WRITE_ACK  the target has placed the data of WRITE/WRITE_IMM wrid
//	5 READ_REQ   RDMA READ of len bytes at (addr, rkey); no payload
//	6 READ_RESP  the len bytes asked for by READ_REQ wrid
//	7 ERROR      fatal: the sender refused a frame and closes the connection
//	             after this one; imm holds the reason code, wrid/addr/rkey/len
//	             describe the refused operation (wrid 0 when it was not a
//	             one-sided op)
//
// Reason codes: 1 unknown or foreign rkey, 2 address outside the region or
// window, 3 length runs past its end, 4 access not granted (read vs write),
// 5 SEND larger than the receive buffers, 6 malformed frame.
//
// Fields an op does not use must be zero, so a decoded header re-encodes to
// the same bytes. A peer that sends anything else is dropped.

const (
	headerSize = 32
	frameMagic = 0x766b
)

// Frame ops.
const (
	opSend     = 1
	opWrite    = 2
	opWriteImm = 3
	opWriteAck = 4
	opReadReq  = 5
	opReadResp = 6
	opError    = 7
)

// ERROR reason codes.
const (
	reasonKey      = 1
	reasonAddr     = 2
	reasonLen      = 3
	reasonAccess   = 4
	reasonTooLarge = 5
	reasonProtocol = 6
)

var opNames = [...]string{
	opSend: "SEND", opWrite: "WRITE", opWriteImm: "WRITE_IMM", opWriteAck: "WRITE_ACK",
	opReadReq: "READ_REQ", opReadResp: "READ_RESP", opError: "ERROR",
}

var reasonNames = [...]string{
	reasonKey: "bad key", reasonAddr: "bad addr", reasonLen: "bad len", reasonAccess: "access denied",
	reasonTooLarge: "message too large", reasonProtocol: "malformed frame",
}

func opName(op byte) string {
	if int(op) < len(opNames) && opNames[op] != "" {
		return opNames[op]
	}
	return fmt.Sprintf("op %#x", op)
}

func reasonName(r uint32) string {
	if r < uint32(len(reasonNames)) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason %d", r)
}

// header is one decoded frame header.
type header struct {
	op    byte
	len   uint32
	wrid  uint64
	addr  uint64
	rkey  uint32
	imm   uint32
	flags byte
}

// hasPayload says whether len counts bytes that follow the header.
func (h *header) hasPayload() bool {
	switch h.op {
	case opSend, opWrite, opWriteImm, opReadResp:
		return true
	}
	return false
}

func (h *header) encode(b []byte) {
	_ = b[headerSize-1]
	b[0] = h.op
	b[1] = h.flags
	binary.LittleEndian.PutUint16(b[2:], frameMagic)
	binary.LittleEndian.PutUint32(b[4:], h.len)
	binary.LittleEndian.PutUint64(b[8:], h.wrid)
	binary.LittleEndian.PutUint64(b[16:], h.addr)
	binary.LittleEndian.PutUint32(b[24:], h.rkey)
	binary.LittleEndian.PutUint32(b[28:], h.imm)
}

// decodeHeader parses and checks one header. It never panics; every
// refusal names the offending field.
func decodeHeader(b []byte) (header, error) {
	var h header
	if len(b) < headerSize {
		return h, fmt.Errorf("short frame header: %d of %d bytes", len(b), headerSize)
	}
	if m := binary.LittleEndian.Uint16(b[2:]); m != frameMagic {
		return h, fmt.Errorf("bad frame magic %#04x (want %#04x)", m, frameMagic)
	}
	h = header{
		op:    b[0],
		flags: b[1],
		len:   binary.LittleEndian.Uint32(b[4:]),
		wrid:  binary.LittleEndian.Uint64(b[8:]),
		addr:  binary.LittleEndian.Uint64(b[16:]),
		rkey:  binary.LittleEndian.Uint32(b[24:]),
		imm:   binary.LittleEndian.Uint32(b[28:]),
	}
	if h.flags != 0 {
		return h, fmt.Errorf("%s frame: reserved flags %#x set", opName(h.op), h.flags)
	}
	// Which fields each op may use; the rest must be zero.
	var wrid, addr, rkey, imm, length bool
	switch h.op {
	case opSend:
		length = true
	case opWrite:
		wrid, addr, rkey, length = true, true, true, true
	case opWriteImm, opError:
		wrid, addr, rkey, imm, length = true, true, true, true, true
	case opWriteAck:
		wrid = true
	case opReadReq:
		wrid, addr, rkey, length = true, true, true, true
	case opReadResp:
		wrid, length = true, true
	default:
		return h, fmt.Errorf("unknown frame op %#x", h.op)
	}
	switch {
	case !length && h.len != 0:
		return h, fmt.Errorf("%s frame: len %d must be 0", opName(h.op), h.len)
	case !wrid && h.wrid != 0:
		return h, fmt.Errorf("%s frame: wrid %#x must be 0", opName(h.op), h.wrid)
	case !addr && h.addr != 0:
		return h, fmt.Errorf("%s frame: addr %#x must be 0", opName(h.op), h.addr)
	case !rkey && h.rkey != 0:
		return h, fmt.Errorf("%s frame: rkey %#x must be 0", opName(h.op), h.rkey)
	case !imm && h.imm != 0:
		return h, fmt.Errorf("%s frame: imm %#x must be 0", opName(h.op), h.imm)
	case h.op == opError && (h.imm == 0 || h.imm > reasonProtocol):
		return h, fmt.Errorf("ERROR frame: unknown reason code %d", h.imm)
	}
	return h, nil
}
