package wire

import (
	"encoding/binary"
	"fmt"
)

// StatsBodySize is the size of the StatsReply body.
const StatsBodySize = 48

// StatsBody is what the server tells a client in StatsReply: its process
// CPU time, for CPU per operation measured on the server's side, and what
// it holds.
type StatsBody struct {
	// CPUUserNs and CPUSysNs are the server process's CPU time in user
	// and system mode since it started, in nanoseconds.
	CPUUserNs uint64
	CPUSysNs  uint64
	// Conns is the number of connections open, this one included.
	Conns uint64
	// Keys is the number of keys stored.
	Keys uint64
	// PoolUsed is the bytes of the value pool in use, in the allocator's
	// block sizes; PoolSize is the pool's size.
	PoolUsed uint64
	PoolSize uint64
}

// Encode writes the body into b[:StatsBodySize]. Stats go field by
// field, not through binary.Encode, whose copy of the body would cost
// each STATS an allocation.
func (s *StatsBody) Encode(b []byte) {
	f := [...]uint64{s.CPUUserNs, s.CPUSysNs, s.Conns, s.Keys, s.PoolUsed, s.PoolSize}
	for i, v := range f {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
}

// DecodeStats parses a StatsReply body, field by field as Encode writes
// it.
func DecodeStats(b []byte) (StatsBody, error) {
	if len(b) != StatsBodySize {
		return StatsBody{}, fmt.Errorf("%w: stats body is %d bytes, want %d", ErrLength, len(b), StatsBodySize)
	}
	var f [StatsBodySize / 8]uint64
	for i := range f {
		f[i] = binary.LittleEndian.Uint64(b[8*i:])
	}
	return StatsBody{CPUUserNs: f[0], CPUSysNs: f[1], Conns: f[2], Keys: f[3], PoolUsed: f[4], PoolSize: f[5]}, nil
}
