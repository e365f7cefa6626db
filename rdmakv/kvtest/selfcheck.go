package kvtest

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// A self-checking value carries who wrote it and a checksum, so a reader can
// tell a torn, misplaced or foreign value from a good one without knowing
// what was written:
//
//	magic u32 | key id u32 | writer u32 | seq u64 | body length u32 | crc32 u32 | body
//
// The CRC covers the key, the header fields before it and the body.
const (
	scMagic  = 0x6b767473
	scHeader = 28
)

type stamp struct {
	key    uint32
	writer uint32
	seq    uint64
}

func (s stamp) String() string { return fmt.Sprintf("key %d writer %d seq %d", s.key, s.writer, s.seq) }

// makeSelfChecking builds an n-byte (n >= scHeader) value for key.
func makeSelfChecking(key []byte, s stamp, n int) []byte {
	b := make([]byte, n)
	binary.LittleEndian.PutUint32(b[0:], scMagic)
	binary.LittleEndian.PutUint32(b[4:], s.key)
	binary.LittleEndian.PutUint32(b[8:], s.writer)
	binary.LittleEndian.PutUint64(b[12:], s.seq)
	binary.LittleEndian.PutUint32(b[20:], uint32(n-scHeader))
	fill(b[scHeader:], uint64(s.writer)<<40^s.seq<<8^uint64(s.key))
	binary.LittleEndian.PutUint32(b[24:], scSum(key, b))
	return b
}

func scSum(key, b []byte) uint32 {
	h := crc32.NewIEEE()
	h.Write(key)
	h.Write(b[:24])
	h.Write(b[scHeader:])
	return h.Sum32()
}

// checkSelfChecking validates b as a value of key with id keyID.
func checkSelfChecking(key []byte, keyID uint32, b []byte) (stamp, error) {
	if len(b) < scHeader {
		return stamp{}, fmt.Errorf("value of %d bytes is shorter than the %d-byte header", len(b), scHeader)
	}
	if m := binary.LittleEndian.Uint32(b[0:]); m != scMagic {
		return stamp{}, fmt.Errorf("bad magic %#x in a %d-byte value", m, len(b))
	}
	s := stamp{
		key:    binary.LittleEndian.Uint32(b[4:]),
		writer: binary.LittleEndian.Uint32(b[8:]),
		seq:    binary.LittleEndian.Uint64(b[12:]),
	}
	if s.key != keyID {
		return s, fmt.Errorf("value belongs to key %d, read from key %d (%v)", s.key, keyID, s)
	}
	if n := binary.LittleEndian.Uint32(b[20:]); int(n) != len(b)-scHeader {
		return s, fmt.Errorf("value says body is %d bytes, got %d (%v): truncated or torn", n, len(b)-scHeader, s)
	}
	if sum := binary.LittleEndian.Uint32(b[24:]); sum != scSum(key, b) {
		return s, fmt.Errorf("checksum mismatch in a %d-byte value (%v): torn or corrupted", len(b), s)
	}
	return s, nil
}
