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

// Encode writes the body into b[:StatsBodySize].
func (s *StatsBody) Encode(b []byte) {
	_ = b[StatsBodySize-1]
	le := binary.LittleEndian
	le.PutUint64(b[0:], s.CPUUserNs)
	le.PutUint64(b[8:], s.CPUSysNs)
	le.PutUint64(b[16:], s.Conns)
	le.PutUint64(b[24:], s.Keys)
	le.PutUint64(b[32:], s.PoolUsed)
	le.PutUint64(b[40:], s.PoolSize)
}

// DecodeStats parses a StatsReply body.
func DecodeStats(b []byte) (StatsBody, error) {
	if len(b) != StatsBodySize {
		return StatsBody{}, fmt.Errorf("%w: stats body is %d bytes, want %d", ErrLength, len(b), StatsBodySize)
	}
	le := binary.LittleEndian
	return StatsBody{
		CPUUserNs: le.Uint64(b[0:]), CPUSysNs: le.Uint64(b[8:]),
		Conns: le.Uint64(b[16:]), Keys: le.Uint64(b[24:]),
		PoolUsed: le.Uint64(b[32:]), PoolSize: le.Uint64(b[40:]),
	}, nil
}
