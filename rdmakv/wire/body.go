package wire

import (
	"encoding/binary"
	"fmt"
)

// putBody writes a body of fixed-size fields into b in wire order. A b
// shorter than the body is the caller's bug, as an index out of range.
func putBody(b []byte, v any) {
	if _, err := binary.Encode(b, binary.LittleEndian, v); err != nil {
		panic(fmt.Sprintf("wire: %T.Encode: %v", v, err))
	}
}

// getBody reads a body of fixed-size fields (v points to it) from b,
// which must be exactly its size.
func getBody(b []byte, what string, v any) error {
	if n := binary.Size(v); len(b) != n {
		return fmt.Errorf("%w: %s body is %d bytes, want %d", ErrLength, what, len(b), n)
	}
	_, err := binary.Decode(b, binary.LittleEndian, v)
	return err
}
