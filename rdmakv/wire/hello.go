package wire

import "encoding/binary"

// HelloBodySize is the size of the Hello body.
const HelloBodySize = 16

// LimitsSize is the size of the HelloReply body.
const LimitsSize = 32

// HelloBody is what a client tells the server when it connects.
type HelloBody struct {
	// RecvSize is the client's receive buffer size: the largest message
	// the server may send it.
	RecvSize uint32
	// Threshold is the client's eager threshold: key+value below it goes
	// eager.
	Threshold uint32
	// Depth is how many requests the client wants in flight.
	Depth uint32
	_     uint32 // reserved, zero
}

// Encode writes the body into b[:HelloBodySize].
func (h *HelloBody) Encode(b []byte) { putBody(b, h) }

// SplitHello separates a HELLO value into the body and the proof that
// follows it in an answer to a challenge (nil when there is none).
func SplitHello(v []byte) (body, proof []byte) {
	if len(v) > HelloBodySize {
		return v[:HelloBodySize], v[HelloBodySize:]
	}
	return v, nil
}

// DecodeHello parses a Hello body.
func DecodeHello(b []byte) (HelloBody, error) {
	var h HelloBody
	if err := getBody(b, "hello", &h); err != nil {
		return HelloBody{}, err
	}
	if binary.LittleEndian.Uint32(b[12:]) != 0 {
		return HelloBody{}, ErrReserved
	}
	return h, nil
}

// Limits is what the server tells a client in HelloReply.
type Limits struct {
	// PoolSize is the size of the server's value pool in bytes.
	PoolSize uint64
	// MaxValue is the largest value the server stores.
	MaxValue uint64
	// MaxEager bounds eager messages: key+value must be below it.
	MaxEager uint32
	// MaxKey is the longest key.
	MaxKey uint32
	// LeaseMillis is how long a rendezvous window stays open.
	LeaseMillis uint32
	// MaxInflight is how many requests a client may have in flight.
	MaxInflight uint32
}

// Encode writes the limits into b[:LimitsSize].
func (l *Limits) Encode(b []byte) { putBody(b, l) }

// DecodeLimits parses a HelloReply body.
func DecodeLimits(b []byte) (Limits, error) {
	var l Limits
	return l, getBody(b, "limits", &l)
}
