// Package wire is the rdmakv message format: a versioned, little-endian
// header (a 16-byte base, then the fields the message's type uses)
// followed by the key and an inline value. Encoding
// writes into caller buffers and decoding returns views into the received
// bytes, so neither allocates; Decode validates every length against the
// buffer and rejects unknown types, so a hostile peer cannot make it panic.
//
// docs/PROTOCOL.md describes the layout, every message type and the flows.
package wire

import "encoding/binary"

// BaseSize is the size of the part of the header every message has.
const BaseSize = 16

// MaxHeaderSize is the size of the longest header (a traced
// GET_REPLY_RDV): enough for any message's header, so buffers can be sized
// before the type is known.
const MaxHeaderSize = BaseSize + 8 + 8 + 8 + 4 + 4 + 4 + 4 + ServerSize

// ServerSize is the size of the server-time field a reply with FlagTrace
// ends its header with.
const ServerSize = 4

// ProtocolVersion is the header version this package speaks. A header
// carries, after the base, only the fields its type uses (HeaderLen), so
// a GET and its eager reply spend no bytes on addresses and tokens they do
// not have; the flags byte carries FlagPeerInvalidate and FlagTrace, and a
// traced reply's header ends with the server's time; STATS asks the
// server for its process CPU time; every message from the server carries
// the client's credit. Peers of different versions refuse each other at
// HELLO.
const ProtocolVersion = 6

// Magic is the first two header bytes, "KV".
const Magic = "KV"

// MaxKeyLen is the largest key the header can describe (key_len is u16).
const MaxKeyLen = 1<<16 - 1

// Base field offsets; docs/PROTOCOL.md has the same table.
const (
	offMagic    = 0  // [2]byte "KV"
	offVersion  = 2  // u8
	offType     = 3  // u8
	offStatus   = 4  // u8
	offFlags    = 5  // u8: Flag bits, unknown bits rejected
	offKeyLen   = 6  // u16
	offReqID    = 8  // u32
	offValueLen = 12 // u32: inline bytes after the key
)

// field is one of the optional header fields. A type's fields follow the
// base in this order (the order of the bits), each present only if the
// type uses it.
type field uint8

const (
	fAddr    field = 1 << iota // u64
	fLength                    // u64
	fVersion                   // u64
	fRKey                      // u32
	fToken                     // u32
	fAux                       // u32
	fCredit                    // u32
)

// fields is what each type carries after the base; docs/PROTOCOL.md has
// the same table.
var fields = [typeEnd]field{
	HelloReply:     fCredit,
	SetReply:       fVersion | fCredit,
	Get:            fAux,
	GetReplyInline: fVersion | fCredit,
	GetReplyRdv:    fAddr | fLength | fVersion | fRKey | fToken | fAux | fCredit,
	GetRelease:     fToken,
	SetRdvReq:      fLength,
	SetRdvGrant:    fAddr | fLength | fRKey | fToken | fAux | fCredit,
	SetFin:         fLength | fToken,
	DeleteReply:    fCredit,
	StatsReply:     fCredit,
	Credit:         fCredit,
}

// headerLens is HeaderLen by type: what Encode writes for an untraced
// header of that type, worked out once so the fields' widths are spelled
// only in Encode and decode.
var headerLens = func() (l [typeEnd]uint8) {
	var b [MaxHeaderSize]byte
	for t := range l {
		l[t] = uint8((&Header{Type: Type(t)}).Encode(b[:]))
	}
	return l
}()

// HeaderLen is the header size of a message of type t: the base and the
// fields t uses. It is BaseSize for a type that is not valid.
func HeaderLen(t Type) int {
	if !t.Valid() {
		return BaseSize
	}
	return int(headerLens[t])
}

// Header is the decoded header of a message. Which of Addr, Length,
// Version, RKey, Token and Aux travel depends on Type (HeaderLen); the
// others are not sent, and decode as zero.
type Header struct {
	Type   Type
	Status Status
	// Flags holds Flag bits; FlagPeerInvalidate and FlagTrace say which
	// types may carry them.
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
	// Credit, in every message from the server, is the client's credit:
	// how many messages that take a receive of the server's (requests
	// and WRITE_WITH_IMMs, counted from the first after the handshake)
	// it may have sent in all, modulo 2^32. It never goes down.
	Credit uint32
	// Server, in a reply with FlagTrace, is the server's time on the
	// request in nanoseconds: from the request's delivery to the reply's
	// post (4.29 s at most).
	Server uint32
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

// FlagTrace in a request that has a reply (SET, GET, SET_RDV_REQ,
// SET_FIN, DELETE) asks the server to time it; the reply then carries the
// flag and ends its header with Server. A SET_RDV_REQ's flag also times
// the SET_REPLY that a WRITE_WITH_IMM commit gets. STATS is not timed:
// neither it nor STATS_REPLY carries the flag.
const FlagTrace Flag = 1 << 1

// knownFlags is every defined Flag bit.
const knownFlags = FlagPeerInvalidate | FlagTrace

// Len is the length of h's header: HeaderLen of its type, and Server when
// h is a traced reply.
func (h *Header) Len() int {
	n := HeaderLen(h.Type)
	if h.Flags&FlagTrace != 0 && h.Type.IsReply() {
		n += ServerSize
	}
	return n
}

// Encode writes h into b[:h.Len()] and returns that length.
// Fields h.Type does not use are not written. It panics if b is too short
// (a programming error, never peer input): b of MaxHeaderSize always fits.
func (h *Header) Encode(b []byte) int {
	_ = b[BaseSize-1]
	b[offMagic], b[offMagic+1] = Magic[0], Magic[1]
	b[offVersion] = ProtocolVersion
	b[offType] = byte(h.Type)
	b[offStatus] = byte(h.Status)
	b[offFlags] = byte(h.Flags)
	le := binary.LittleEndian
	le.PutUint16(b[offKeyLen:], h.KeyLen)
	le.PutUint32(b[offReqID:], h.ReqID)
	le.PutUint32(b[offValueLen:], h.ValueLen)
	var f field
	if h.Type.Valid() {
		f = fields[h.Type]
	}
	n := BaseSize
	if f&fAddr != 0 {
		le.PutUint64(b[n:], h.Addr)
		n += 8
	}
	if f&fLength != 0 {
		le.PutUint64(b[n:], h.Length)
		n += 8
	}
	if f&fVersion != 0 {
		le.PutUint64(b[n:], h.Version)
		n += 8
	}
	if f&fRKey != 0 {
		le.PutUint32(b[n:], h.RKey)
		n += 4
	}
	if f&fToken != 0 {
		le.PutUint32(b[n:], h.Token)
		n += 4
	}
	if f&fAux != 0 {
		le.PutUint32(b[n:], h.Aux)
		n += 4
	}
	if f&fCredit != 0 {
		le.PutUint32(b[n:], h.Credit)
		n += 4
	}
	if h.Flags&FlagTrace != 0 && h.Type.IsReply() {
		le.PutUint32(b[n:], h.Server)
		n += ServerSize
	}
	return n
}

// decode reads a header whose type is valid from b, which holds at
// least its Len, into h.
func (h *Header) decode(b []byte) {
	le := binary.LittleEndian
	*h = Header{
		Type:     Type(b[offType]),
		Status:   Status(b[offStatus]),
		Flags:    Flag(b[offFlags]),
		KeyLen:   le.Uint16(b[offKeyLen:]),
		ReqID:    le.Uint32(b[offReqID:]),
		ValueLen: le.Uint32(b[offValueLen:]),
	}
	f := fields[h.Type]
	n := BaseSize
	if f&fAddr != 0 {
		h.Addr = le.Uint64(b[n:])
		n += 8
	}
	if f&fLength != 0 {
		h.Length = le.Uint64(b[n:])
		n += 8
	}
	if f&fVersion != 0 {
		h.Version = le.Uint64(b[n:])
		n += 8
	}
	if f&fRKey != 0 {
		h.RKey = le.Uint32(b[n:])
		n += 4
	}
	if f&fToken != 0 {
		h.Token = le.Uint32(b[n:])
		n += 4
	}
	if f&fAux != 0 {
		h.Aux = le.Uint32(b[n:])
		n += 4
	}
	if f&fCredit != 0 {
		h.Credit = le.Uint32(b[n:])
		n += 4
	}
	if h.Flags&FlagTrace != 0 && h.Type.IsReply() {
		h.Server = le.Uint32(b[n:])
	}
}
