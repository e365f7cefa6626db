// Package valuegen writes values whose content is a pure function of (key,
// version, length) and checks values read back against that function, so a
// verifying benchmark needs no copy of what it wrote: remembering the last
// version written per key is enough.
//
// Encoding of an n-byte value, n >= HeaderSize (little-endian):
//
//	[0:4]   n, as uint32
//	[4:8]   header check: low 32 bits of a hash of n, version and key hash
//	[8:16]  version
//	[16:24] key hash
//	[24:n]  body: word i (8 bytes at 24+8i; the last may be partial) is
//	        splitmix64(seed + (i+1)*gamma), seed = key hash ^ version
//
// The splitmix64 finalizer is a bijection, so from one body word the seed,
// and hence the version, that produced it can be recovered; that is how a
// torn value (a header and a body that are, from some point on, another
// version's stream) is told apart from random corruption.
//
// Values shorter than HeaderSize cannot hold the header. They are the first
// n bytes of the stream seeded by key hash ^ (shortTag + n): still a
// function of the key and the length, so a wrong key or a resized value is
// caught, but the version is not encoded (Check reports Version 0) and
// wrong_key is reported as mismatch.
package valuegen

import (
	"encoding/binary"
	"math/bits"
)

// HeaderSize is the length of the header; shorter values use the short
// encoding.
const HeaderSize = 24

// Result kinds.
const (
	KindOK        = "ok"
	KindMismatch  = "mismatch"   // content is not what any version would be
	KindTorn      = "torn"       // valid header, body switches to another version's stream
	KindWrongKey  = "wrong_key"  // intact value of another key
	KindWrongSize = "wrong_size" // length differs from the expected or the written one
)

// Result is Check's verdict.
type Result struct {
	OK   bool
	Kind string
	// Version is the version in the header (0 for short values and when the
	// header is unreadable).
	Version uint64
	// Other is, for torn, the version the body switches to.
	Other uint64
	// Offset is the first byte that differs from the expected content
	// (-1 when OK or for wrong_size).
	Offset int
}

const (
	gamma    = 0x9e3779b97f4a7c15
	mixC1    = 0xbf58476d1ce4e5b9
	mixC2    = 0x94d049bb133111eb
	magic    = 0x6b76626e63687631 // "kvbnchv1": folded into the header check
	shortTag = 0x5348525456414c55
)

var (
	invC1 = inverse(mixC1)
	invC2 = inverse(mixC2)
)

func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * mixC1
	z = (z ^ (z >> 27)) * mixC2
	return z ^ (z >> 31)
}

func unmix(z uint64) uint64 {
	z = unshift(z, 31)
	z *= invC2
	z = unshift(z, 27)
	z *= invC1
	return unshift(z, 30)
}

// unshift inverts z ^= z >> s.
func unshift(y uint64, s uint) uint64 {
	x := y
	for i := s; i < 64; i += s {
		x = y ^ (x >> s)
	}
	return x
}

// inverse is the multiplicative inverse of odd c mod 2^64 (Newton).
func inverse(c uint64) uint64 {
	x := c
	for i := 0; i < 5; i++ {
		x *= 2 - c*x
	}
	return x
}

// HashKey is the key hash stored in headers.
func HashKey(key []byte) uint64 {
	h := uint64(len(key))*gamma ^ magic
	for len(key) >= 8 {
		h = mix(h ^ binary.LittleEndian.Uint64(key))
		key = key[8:]
	}
	if len(key) > 0 {
		var w uint64
		for i, b := range key {
			w |= uint64(b) << (8 * i)
		}
		h = mix(h ^ w ^ 0xff<<56)
	}
	return mix(h)
}

func headerCheck(n int, version, kh uint64) uint32 {
	// Chained so that every input bit reaches the 32 bits kept.
	return uint32(mix(mix(mix(magic^uint64(uint32(n)))^version) ^ kh))
}

// fill writes the stream for seed into b.
func fill(b []byte, seed uint64) {
	x := seed
	for len(b) >= 8 {
		x += gamma
		binary.LittleEndian.PutUint64(b, mix(x))
		b = b[8:]
	}
	if len(b) > 0 {
		w := mix(x + gamma)
		for i := range b {
			b[i] = byte(w >> (8 * i))
		}
	}
}

// match returns the offset in b of the first byte that differs from the
// stream for seed, or -1.
func match(b []byte, seed uint64) int {
	x := seed
	off := 0
	for len(b)-off >= 8 {
		x += gamma
		if binary.LittleEndian.Uint64(b[off:]) != mix(x) {
			w := binary.LittleEndian.Uint64(b[off:]) ^ mix(x)
			return off + bits.TrailingZeros64(w)/8
		}
		off += 8
	}
	if off < len(b) {
		w := mix(x + gamma)
		for i := off; i < len(b); i++ {
			if b[i] != byte(w>>(8*(i-off))) {
				return i
			}
		}
	}
	return -1
}

// Fill writes into all of dst the value of key at version.
func Fill(dst []byte, key []byte, version uint64) {
	kh := HashKey(key)
	n := len(dst)
	if n < HeaderSize {
		fill(dst, kh^(shortTag+uint64(n)))
		return
	}
	binary.LittleEndian.PutUint32(dst[0:], uint32(n))
	binary.LittleEndian.PutUint32(dst[4:], headerCheck(n, version, kh))
	binary.LittleEndian.PutUint64(dst[8:], version)
	binary.LittleEndian.PutUint64(dst[16:], kh)
	fill(dst[HeaderSize:], kh^version)
}

// Check tells whether got is a value Fill wrote for key. wantLen is the
// length the caller expects; a negative wantLen skips that comparison (the
// header's own length is still checked). Any input is safe.
func Check(got []byte, key []byte, wantLen int) Result {
	n := len(got)
	if wantLen >= 0 && n != wantLen {
		return Result{Kind: KindWrongSize, Offset: -1}
	}
	kh := HashKey(key)
	if n < HeaderSize {
		if off := match(got, kh^(shortTag+uint64(n))); off >= 0 {
			return Result{Kind: KindMismatch, Offset: off}
		}
		return Result{OK: true, Kind: KindOK, Offset: -1}
	}
	length := binary.LittleEndian.Uint32(got[0:])
	check := binary.LittleEndian.Uint32(got[4:])
	version := binary.LittleEndian.Uint64(got[8:])
	hk := binary.LittleEndian.Uint64(got[16:])
	if check != headerCheck(int(length), version, hk) {
		return Result{Kind: KindMismatch, Offset: 0}
	}
	if length != uint32(n) {
		return Result{Kind: KindWrongSize, Version: version, Offset: -1}
	}
	if hk != kh {
		return Result{Kind: KindWrongKey, Version: version, Offset: 16}
	}
	body := got[HeaderSize:]
	off := match(body, kh^version)
	if off < 0 {
		return Result{OK: true, Kind: KindOK, Version: version, Offset: -1}
	}
	r := Result{Kind: KindMismatch, Version: version, Offset: HeaderSize + off}
	// The splice point may fall inside a word, so try the word holding the
	// first difference and the one after it.
	for w := off / 8; w <= off/8+1; w++ {
		if other, ok := spliced(body, w, kh); ok && other != version {
			r.Kind, r.Other = KindTorn, other
			break
		}
	}
	return r
}

// spliced reports whether body words w and w+1 are both consecutive words
// of one stream, and which version's.
func spliced(body []byte, w int, kh uint64) (uint64, bool) {
	if (w+2)*8 > len(body) {
		return 0, false
	}
	seed := unmix(binary.LittleEndian.Uint64(body[w*8:])) - uint64(w+1)*gamma
	if binary.LittleEndian.Uint64(body[(w+1)*8:]) != mix(seed+uint64(w+2)*gamma) {
		return 0, false
	}
	return seed ^ kh, true
}
