package keygen

// Keys are 'k' followed by the index in decimal, zero-padded to fill the
// size: Key(dst, 42, 8) is "k0000042". Every key of a workload has the same
// length and the mapping is fixed, so any process can rebuild any key.

// pow10 holds 10^0 .. 10^18.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return
}()

// Capacity is the number of distinct keys Key can write in size bytes:
// 10^(size-1), saturating at the int64 maximum. Sizes below 1 hold none.
func Capacity(size int) int64 {
	switch {
	case size < 1:
		return 0
	case size-1 >= len(pow10):
		return 1<<63 - 1
	}
	return pow10[size-1]
}

// Key writes key idx into dst[:size], growing dst only if its capacity is
// below size, and returns dst[:size]. Indexes at or beyond Capacity(size),
// and negative ones, keep only their low decimal digits (they alias); the
// workload validator rejects key counts that would need them.
func Key(dst []byte, idx int64, size int) []byte {
	if size <= 0 {
		return dst[:0]
	}
	if cap(dst) < size {
		dst = make([]byte, size)
	}
	dst = dst[:size]
	dst[0] = 'k'
	u := uint64(idx)
	if idx < 0 {
		u = uint64(-(idx + 1)) + 1
	}
	// Digits until the index runs out, then padding: a key space of n keys
	// costs log10(n) divisions per key, not size-1.
	i := size - 1
	for ; i >= 1 && u != 0; i-- {
		dst[i] = byte('0' + u%10)
		u /= 10
	}
	for ; i >= 1; i-- {
		dst[i] = '0'
	}
	return dst
}

// SizeFor is the shortest key size that holds count distinct keys: 'k'
// and the decimal digits of the largest index, count-1 ("k" alone is key
// 0, the one key of size 1).
func SizeFor(count int64) int {
	size := 1
	for Capacity(size) < count { // Capacity saturates at the int64 maximum
		size++
	}
	return size
}
