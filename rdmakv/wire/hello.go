package wire

import (
	"encoding/binary"
	"fmt"
)

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
}

// Encode writes the body into b[:HelloBodySize].
func (h *HelloBody) Encode(b []byte) {
	_ = b[HelloBodySize-1]
	le := binary.LittleEndian
	le.PutUint32(b[0:], h.RecvSize)
	le.PutUint32(b[4:], h.Threshold)
	le.PutUint32(b[8:], h.Depth)
	le.PutUint32(b[12:], 0)
}

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
	if len(b) != HelloBodySize {
		return HelloBody{}, fmt.Errorf("%w: hello body is %d bytes, want %d", ErrLength, len(b), HelloBodySize)
	}
	le := binary.LittleEndian
	if le.Uint32(b[12:]) != 0 {
		return HelloBody{}, ErrReserved
	}
	return HelloBody{RecvSize: le.Uint32(b[0:]), Threshold: le.Uint32(b[4:]), Depth: le.Uint32(b[8:])}, nil
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
func (l *Limits) Encode(b []byte) {
	_ = b[LimitsSize-1]
	le := binary.LittleEndian
	le.PutUint64(b[0:], l.PoolSize)
	le.PutUint64(b[8:], l.MaxValue)
	le.PutUint32(b[16:], l.MaxEager)
	le.PutUint32(b[20:], l.MaxKey)
	le.PutUint32(b[24:], l.LeaseMillis)
	le.PutUint32(b[28:], l.MaxInflight)
}

// DecodeLimits parses a HelloReply body.
func DecodeLimits(b []byte) (Limits, error) {
	if len(b) != LimitsSize {
		return Limits{}, fmt.Errorf("%w: limits body is %d bytes, want %d", ErrLength, len(b), LimitsSize)
	}
	le := binary.LittleEndian
	return Limits{
		PoolSize: le.Uint64(b[0:]), MaxValue: le.Uint64(b[8:]),
		MaxEager: le.Uint32(b[16:]), MaxKey: le.Uint32(b[20:]),
		LeaseMillis: le.Uint32(b[24:]), MaxInflight: le.Uint32(b[28:]),
	}, nil
}
