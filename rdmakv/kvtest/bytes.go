package kvtest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
)

// fill writes a pattern derived from seed into b. Every (seed, offset) gives
// a different byte sequence, so a misplaced, shifted or stale chunk shows up
// as a mismatch rather than passing by luck as it would with a constant.
func fill(b []byte, seed uint64) {
	x := seed*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(b[i:], x)
	}
	for ; i < len(b); i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
}

// pattern returns a fresh n-byte slice filled from seed.
func pattern(n int, seed uint64) []byte {
	b := make([]byte, n)
	fill(b, seed)
	return b
}

// diffBytes describes how got differs from want, or returns "".
func diffBytes(got, want []byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("got %d bytes, want %d", len(got), len(want))
	}
	if bytes.Equal(got, want) { // fast path; the loop below is slow under -race
		return ""
	}
	for i := range got {
		if got[i] != want[i] {
			j := i
			for j < len(got) && got[j] != want[j] {
				j++
			}
			return fmt.Sprintf("%d bytes: first difference at offset %d (got %#02x, want %#02x; %d differing bytes from there)",
				len(got), i, got[i], want[i], j-i)
		}
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }

// sizeName prints byte counts the way the case names use them.
func sizeName(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10) + "B"
}
