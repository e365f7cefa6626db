// Package wire is the rdmakv message format: a fixed, versioned,
// little-endian header followed by the key and an inline value. Encoding
// writes into caller buffers and decoding returns views into the received
// bytes, so neither allocates; Decode validates every length against the
// buffer and rejects unknown types, so a hostile peer cannot make it panic.
//
// docs/PROTOCOL.md describes the layout, every message type and the flows.
package wire

import "encoding/binary"

// HeaderSize is the size of every message header in bytes.
const HeaderSize = 56

// ProtocolVersion is the header version this package speaks. Version 2
// defined the flags byte (FlagPeerInvalidate), which version 1 required to
// be zero: a version 1 peer would drop a version 2 client at its first GET,
// so the two refuse each other at HELLO instead.
const ProtocolVersion = 2

// Magic is the first two header bytes, "KV".
const Magic = "KV"

// MaxKeyLen is the largest key the header can describe (key_len is u16).
const MaxKeyLen = 1<<16 - 1

// Header field offsets; docs/PROTOCOL.md has the same table.
const (
	offMagic    = 0  // [2]byte "KV"
	offVersion  = 2  // u8
	offType     = 3  // u8
	offStatus   = 4  // u8
	offFlags    = 5  // u8: Flag bits, unknown bits rejected
	offKeyLen   = 6  // u16
	offReqID    = 8  // u32
	offValueLen = 12 // u32: inline bytes after the key
	offAddr     = 16 // u64
	offLength   = 24 // u64
	offValVer   = 32 // u64
	offRKey     = 40 // u32
	offToken    = 44 // u32
	offAux      = 48 // u32
	offReserved = 52 // u32, must be 0
)

// Header is the decoded fixed part of a message. Which of Addr, Length,
// Version, RKey, Token and Aux are meaningful depends on Type; fields a type
// does not use are sent as zero.
type Header struct {
	Type   Type
	Status Status
	// Flags holds Flag bits; only GET, SET_RDV_REQ, and GET_REPLY_RDV and
	// SET_RDV_GRANT with status OK may carry any.
	Flags Flag
	// KeyLen is the number of key bytes after the header.
	KeyLen uint16
	// ReqID matches a reply to its request; chosen by the client.
	ReqID uint32
	// ValueLen is the number of inline value (or body) bytes after the key.
	ValueLen uint32
	// Addr is a remote address for a one-sided transfer (rendezvous get
	// reply, rendezvous set grant).
	Addr uint64
	// Length is the byte count of a rendezvous transfer.
	Length uint64
	// Version is the value's version: bumped by the server on every commit.
	Version uint64
	// RKey is the remote key of the window a rendezvous transfer uses.
	RKey uint32
	// Token names a rendezvous lease or grant on this connection.
	Token uint32
	// Aux is the client's eager threshold in GET, and the lease in
	// milliseconds in GET_REPLY_RDV and SET_RDV_GRANT.
	Aux uint32
}

// Flag is a header flag bit.
type Flag uint8

// FlagPeerInvalidate in GET or SET_RDV_REQ says the client can close a
// window itself: it sends GET_RELEASE or SET_FIN as a SEND_WITH_INV naming
// the rkey (after its READ completes; posted with its WRITE). The server
// answers with the flag in GET_REPLY_RDV or SET_RDV_GRANT when the window
// is one the client may close that way; the client must then close it so,
// or not at all, and the server skips its own invalidation. Without the
// flag in the reply the client sends the plain message (or a
// WRITE_WITH_IMM) and the server invalidates.
const FlagPeerInvalidate Flag = 1 << 0

// knownFlags is every defined Flag bit.
const knownFlags = FlagPeerInvalidate

// Encode writes h into b[:HeaderSize] and returns HeaderSize. It panics if b
// is shorter than HeaderSize (a programming error, never peer input).
func (h *Header) Encode(b []byte) int {
	_ = b[HeaderSize-1]
	b[offMagic], b[offMagic+1] = Magic[0], Magic[1]
	b[offVersion] = ProtocolVersion
	b[offType] = byte(h.Type)
	b[offStatus] = byte(h.Status)
	b[offFlags] = byte(h.Flags)
	le := binary.LittleEndian
	le.PutUint16(b[offKeyLen:], h.KeyLen)
	le.PutUint32(b[offReqID:], h.ReqID)
	le.PutUint32(b[offValueLen:], h.ValueLen)
	le.PutUint64(b[offAddr:], h.Addr)
	le.PutUint64(b[offLength:], h.Length)
	le.PutUint64(b[offValVer:], h.Version)
	le.PutUint32(b[offRKey:], h.RKey)
	le.PutUint32(b[offToken:], h.Token)
	le.PutUint32(b[offAux:], h.Aux)
	le.PutUint32(b[offReserved:], 0)
	return HeaderSize
}

func decodeHeader(b []byte) Header {
	le := binary.LittleEndian
	return Header{
		Type:     Type(b[offType]),
		Status:   Status(b[offStatus]),
		Flags:    Flag(b[offFlags]),
		KeyLen:   le.Uint16(b[offKeyLen:]),
		ReqID:    le.Uint32(b[offReqID:]),
		ValueLen: le.Uint32(b[offValueLen:]),
		Addr:     le.Uint64(b[offAddr:]),
		Length:   le.Uint64(b[offLength:]),
		Version:  le.Uint64(b[offValVer:]),
		RKey:     le.Uint32(b[offRKey:]),
		Token:    le.Uint32(b[offToken:]),
		Aux:      le.Uint32(b[offAux:]),
	}
}
