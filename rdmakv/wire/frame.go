package wire

import (
	"errors"
	"fmt"
)

// Frame is a decoded message. Key and Value are views into the buffer
// given to Decode.
type Frame struct {
	Header
	Key   []byte
	Value []byte
}

// Decode errors; Decode wraps them with the detail, so test with errors.Is.
var (
	ErrShort    = errors.New("wire: frame shorter than header")
	ErrMagic    = errors.New("wire: bad magic")
	ErrVersion  = errors.New("wire: unsupported protocol version")
	ErrType     = errors.New("wire: unknown message type")
	ErrStatus   = errors.New("wire: unknown status")
	ErrLength   = errors.New("wire: length does not match frame")
	ErrReserved = errors.New("wire: reserved bits not zero")
	ErrField    = errors.New("wire: field not allowed for type")
)

// shape says which variable parts a type may carry.
type shape struct {
	key   bool // may carry a key
	value bool // may carry an inline value of any length
	body  int  // exact inline length when > 0 (fixed-size body)
	alt   int  // another length the body may have, when > 0
	token bool // Token must be non-zero
}

var shapes = [typeEnd]shape{
	Hello:          {body: HelloBodySize, alt: HelloBodySize + ProofSize},
	HelloReply:     {body: LimitsSize, alt: ChallengeSize},
	Set:            {key: true, value: true},
	SetReply:       {},
	Get:            {key: true},
	GetReplyInline: {value: true},
	GetReplyRdv:    {},
	GetRelease:     {token: true},
	SetRdvReq:      {key: true},
	SetRdvGrant:    {},
	SetFin:         {token: true},
	Delete:         {key: true},
	DeleteReply:    {},
	Stats:          {},
	StatsReply:     {body: StatsBodySize},
	Credit:         {},
}

// mayCarry reports whether a type with status st may carry flag:
// FlagPeerInvalidate is asked for in GET and SET_RDV_REQ and granted in a
// successful GET_REPLY_RDV or SET_RDV_GRANT; FlagTrace goes on a request
// that has a reply and on its reply, but not on the handshake or STATS,
// which are not operations to time.
func (t Type) mayCarry(flag Flag, st Status) bool {
	switch flag {
	case FlagPeerInvalidate:
		switch t {
		case Get, SetRdvReq:
			return true
		case GetReplyRdv, SetRdvGrant:
			return st == OK
		}
	case FlagTrace:
		switch t {
		case Set, Get, SetRdvReq, SetFin, Delete:
			return true
		}
		return t.IsReply() && t != HelloReply && t != StatsReply && t != Credit
	}
	return false
}

// Decode parses one message from b, which must hold exactly one frame. It
// checks magic, version, type, status and flags, that the header, key and
// value lengths add up to len(b), and that the type may carry them.
func Decode(b []byte) (Frame, error) {
	var f Frame
	if err := f.Decode(b); err != nil {
		return Frame{}, err
	}
	return f, nil
}

// Decode is the package's Decode into f, for a data path that keeps one
// Frame per connection rather than copying one out per message. On error
// f holds nothing meaningful.
func (f *Frame) Decode(b []byte) error {
	if len(b) < BaseSize {
		return fmt.Errorf("%w: %d bytes, need %d", ErrShort, len(b), BaseSize)
	}
	if b[offMagic] != Magic[0] || b[offMagic+1] != Magic[1] {
		return fmt.Errorf("%w: %#02x %#02x", ErrMagic, b[offMagic], b[offMagic+1])
	}
	if b[offVersion] != ProtocolVersion {
		return fmt.Errorf("%w: %d (speak %d)", ErrVersion, b[offVersion], ProtocolVersion)
	}
	if Flag(b[offFlags])&^knownFlags != 0 {
		return ErrReserved
	}
	t := Type(b[offType])
	if !t.Valid() {
		return fmt.Errorf("%w: %d", ErrType, uint8(t))
	}
	hl := int(headerLens[t])
	if Flag(b[offFlags])&FlagTrace != 0 && t.IsReply() {
		hl += ServerSize
	}
	if len(b) < hl {
		return fmt.Errorf("%w: %d bytes, a %s header is %d", ErrShort, len(b), t, hl)
	}
	h := &f.Header
	h.decode(b)
	if err := h.check(len(b) - hl); err != nil {
		return err
	}
	k := hl + int(h.KeyLen)
	f.Key, f.Value = b[hl:k:k], b[k:len(b):len(b)]
	return nil
}

// check validates a decoded header against the n bytes that follow it.
func (h *Header) check(n int) error {
	for _, fl := range [...]Flag{FlagPeerInvalidate, FlagTrace} {
		if h.Flags&fl != 0 && !h.Type.mayCarry(fl, h.Status) {
			return fmt.Errorf("%w: %s with flags %#02x", ErrField, h.Type, uint8(h.Flags))
		}
	}
	if !h.Status.Valid() {
		return fmt.Errorf("%w: %d", ErrStatus, uint8(h.Status))
	}
	if h.Status != OK && !h.Type.IsReply() {
		return fmt.Errorf("%w: %s carries status %s", ErrField, h.Type, h.Status)
	}
	if uint64(h.KeyLen)+uint64(h.ValueLen) != uint64(n) {
		return fmt.Errorf("%w: %s header says %d key + %d value bytes, frame has %d after the header",
			ErrLength, h.Type, h.KeyLen, h.ValueLen, n)
	}
	s := shapes[h.Type]
	if h.KeyLen != 0 && !s.key {
		return fmt.Errorf("%w: %s with a %d-byte key", ErrField, h.Type, h.KeyLen)
	}
	switch {
	case s.body > 0:
		if err := h.checkBody(s); err != nil {
			return err
		}
	case !s.value && h.ValueLen != 0:
		return fmt.Errorf("%w: %s with %d inline value bytes", ErrField, h.Type, h.ValueLen)
	}
	if s.token && h.Token == 0 {
		return fmt.Errorf("%w: %s with token 0", ErrField, h.Type)
	}
	return nil
}

// checkBody checks the length of a fixed-size body: a HELLO is the bare
// body or the body with a proof; a successful reply carries its body; a
// HELLO_REPLY's THRESHOLD refusal carries the limits or nothing,
// AUTH_REQUIRED the challenge, and any other refusal nothing.
func (h *Header) checkBody(s shape) error {
	n := int(h.ValueLen)
	var ok bool
	switch {
	case h.Type == Hello:
		ok = n == s.body || n == s.alt
	case h.Status == OK:
		ok = n == s.body
	case h.Type == HelloReply && h.Status == AuthRequired:
		ok = n == s.alt
	case h.Type == HelloReply && h.Status == Threshold:
		ok = n == 0 || n == s.body
	default:
		ok = n == 0
	}
	if !ok {
		return fmt.Errorf("%w: %s %s body is %d bytes", ErrLength, h.Type, h.Status, n)
	}
	return nil
}

// AppendFrame encodes h with key and value into dst and returns the
// extended slice, setting KeyLen and ValueLen from the slices. It is meant
// for tests and tools; the data path sends the header, key and value as
// separate parts without copying.
func AppendFrame(dst []byte, h Header, key, value []byte) []byte {
	h.KeyLen = uint16(len(key))
	h.ValueLen = uint32(len(value))
	var hb [MaxHeaderSize]byte
	dst = append(dst, hb[:h.Encode(hb[:])]...)
	dst = append(dst, key...)
	return append(dst, value...)
}
