package valuegen

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
)

var sizes = []int{0, 1, 7, 8, 23, 24, 25, 31, 32, 33, 64, 100, 4096, 4099, 65536}

func TestRoundTrip(t *testing.T) {
	key := []byte("k0000000000000042")
	for _, n := range sizes {
		for _, v := range []uint64{0, 1, 2, 1 << 40, ^uint64(0)} {
			b := make([]byte, n)
			Fill(b, key, v)
			r := Check(b, key, n)
			if !r.OK || r.Kind != KindOK || r.Offset != -1 {
				t.Fatalf("n=%d v=%d: %+v", n, v, r)
			}
			if n >= HeaderSize && r.Version != v {
				t.Fatalf("n=%d: version %d, want %d", n, r.Version, v)
			}
			if r2 := Check(b, key, -1); !r2.OK {
				t.Fatalf("n=%d wantLen=-1: %+v", n, r2)
			}
			c := make([]byte, n)
			Fill(c, key, v)
			if !bytes.Equal(b, c) {
				t.Fatalf("n=%d: Fill not deterministic", n)
			}
		}
	}
}

func TestVersionsAndKeysDiffer(t *testing.T) {
	a, b := make([]byte, 64), make([]byte, 64)
	Fill(a, []byte("key1"), 1)
	Fill(b, []byte("key1"), 2)
	if bytes.Equal(a[HeaderSize:], b[HeaderSize:]) {
		t.Fatal("two versions have the same body")
	}
	Fill(b, []byte("key2"), 1)
	if bytes.Equal(a[HeaderSize:], b[HeaderSize:]) {
		t.Fatal("two keys have the same body")
	}
}

func TestFlippedByteCaught(t *testing.T) {
	key := []byte("k0000000000000007")
	for _, n := range sizes {
		if n == 0 || n > 4099 { // every byte of a 64 KiB value is slow under -race
			continue
		}
		b := make([]byte, n)
		Fill(b, key, 9)
		for i := 0; i < n; i++ {
			for _, mask := range []byte{0x01, 0x80, 0xff} {
				b[i] ^= mask
				r := Check(b, key, n)
				b[i] ^= mask
				if r.OK {
					t.Fatalf("n=%d: byte %d ^ %#x not caught", n, i, mask)
				}
				if r.Kind == KindTorn {
					t.Fatalf("n=%d: byte %d ^ %#x reported torn: %+v", n, i, mask, r)
				}
				if i >= HeaderSize && (r.Kind != KindMismatch || r.Offset != i || r.Version != 9) {
					t.Fatalf("n=%d: body byte %d ^ %#x: %+v", n, i, mask, r)
				}
				if i < HeaderSize && n >= HeaderSize && r.Kind != KindMismatch {
					t.Fatalf("n=%d: header byte %d ^ %#x: %+v, want mismatch", n, i, mask, r)
				}
			}
		}
	}
}

func TestSplicedVersionsAreTorn(t *testing.T) {
	key := []byte("k0000000000000003")
	const n = 4096
	v1, v2 := make([]byte, n), make([]byte, n)
	Fill(v1, key, 1)
	Fill(v2, key, 2)
	mixed := make([]byte, n)
	// Every split point leaving at least 17 bytes of the second version
	// (two whole words after any partial one) is recognised.
	for cut := 1; cut <= n-17; cut += 13 {
		copy(mixed, v1[:cut])
		copy(mixed[cut:], v2[cut:])
		r := Check(mixed, key, n)
		switch {
		case bytes.Equal(mixed, v2):
			// The versions share the length field, so a cut inside it
			// leaves v2 intact.
			if !r.OK || r.Version != 2 {
				t.Fatalf("cut %d: %+v", cut, r)
			}
		case cut < HeaderSize && bytes.Equal(mixed[:HeaderSize], v1[:HeaderSize]):
			// The cut fell in header bytes the versions share: v1's
			// header, v2's body.
			if r.Kind != KindTorn || r.Version != 1 || r.Other != 2 || r.Offset != HeaderSize {
				t.Fatalf("cut %d: %+v", cut, r)
			}
		case cut < HeaderSize:
			// The header itself is torn: unreadable.
			if r.OK || r.Kind != KindMismatch {
				t.Fatalf("cut %d: %+v", cut, r)
			}
		default:
			if r.Kind != KindTorn || r.Version != 1 || r.Other != 2 || r.Offset < cut || r.Offset > cut+7 {
				t.Fatalf("cut %d: %+v, want torn 1->2 at %d", cut, r, cut)
			}
		}
	}
	// Header of v2 with the old body: torn the other way.
	copy(mixed, v2[:HeaderSize])
	copy(mixed[HeaderSize:], v1[HeaderSize:])
	if r := Check(mixed, key, n); r.Kind != KindTorn || r.Version != 2 || r.Other != 1 || r.Offset != HeaderSize {
		t.Fatalf("new header, old body: %+v", r)
	}
	// A body region that is v2 then back to v1 (a partial overwrite).
	copy(mixed, v1)
	copy(mixed[1000:2000], v2[1000:2000])
	if r := Check(mixed, key, n); r.Kind != KindTorn || r.Other != 2 {
		t.Fatalf("patched region: %+v", r)
	}
}

func TestWrongKeyAndSize(t *testing.T) {
	b := make([]byte, 100)
	Fill(b, []byte("alpha"), 3)
	if r := Check(b, []byte("beta"), 100); r.Kind != KindWrongKey || r.Version != 3 {
		t.Fatalf("wrong key: %+v", r)
	}
	if r := Check(b, []byte("alpha"), 99); r.Kind != KindWrongSize {
		t.Fatalf("want 99: %+v", r)
	}
	if r := Check(b[:60], []byte("alpha"), -1); r.Kind != KindWrongSize || r.Version != 3 {
		t.Fatalf("truncated: %+v", r)
	}
	s := make([]byte, 10)
	Fill(s, []byte("alpha"), 3)
	if r := Check(s, []byte("beta"), 10); r.OK || r.Kind != KindMismatch {
		t.Fatalf("short, wrong key: %+v", r)
	}
	if r := Check(s[:9], []byte("alpha"), -1); r.OK {
		t.Fatalf("short truncated passed: %+v", r)
	}
}

func TestUnmix(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 10000; i++ {
		x := r.Uint64()
		if unmix(mix(x)) != x {
			t.Fatalf("unmix(mix(%#x)) = %#x", x, unmix(mix(x)))
		}
	}
}

func TestZeroAllocs(t *testing.T) {
	key := []byte("k0000000000000001")
	b := make([]byte, 4096)
	if a := testing.AllocsPerRun(100, func() {
		Fill(b, key, 5)
		if !Check(b, key, len(b)).OK {
			panic("bad")
		}
		b[100] ^= 1
		_ = Check(b, key, len(b))
		b[100] ^= 1
	}); a != 0 {
		t.Fatalf("%v allocs", a)
	}
}

func FuzzCheck(f *testing.F) {
	for _, n := range []int{0, 5, 24, 40, 100} {
		b := make([]byte, n)
		Fill(b, []byte("key"), 7)
		f.Add(b, []byte("key"), n)
	}
	f.Fuzz(func(t *testing.T, got, key []byte, wantLen int) {
		r := Check(got, key, wantLen)
		switch r.Kind {
		case KindOK, KindMismatch, KindTorn, KindWrongKey, KindWrongSize:
		default:
			t.Fatalf("kind %q", r.Kind)
		}
		if r.OK != (r.Kind == KindOK) {
			t.Fatalf("OK %v with kind %s", r.OK, r.Kind)
		}
		if r.OK {
			// Anything accepted must be exactly what Fill writes.
			want := make([]byte, len(got))
			Fill(want, key, r.Version)
			if !bytes.Equal(want, got) {
				t.Fatalf("accepted a value Fill would not write")
			}
		}
	})
}

func benchSizes(b *testing.B, f func(b *testing.B, buf, key []byte)) {
	for _, n := range []int{64, 4096, 65536, 1 << 20} {
		b.Run(sizeName(n), func(b *testing.B) {
			buf := make([]byte, n)
			key := []byte("k0000000000000001")
			Fill(buf, key, 1)
			b.SetBytes(int64(n))
			b.ReportAllocs()
			f(b, buf, key)
		})
	}
}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.Itoa(n>>20) + "MiB"
	case n >= 1<<10:
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}

func BenchmarkFill(b *testing.B) {
	benchSizes(b, func(b *testing.B, buf, key []byte) {
		for b.Loop() {
			Fill(buf, key, 1)
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	benchSizes(b, func(b *testing.B, buf, key []byte) {
		for b.Loop() {
			if !Check(buf, key, len(buf)).OK {
				b.Fatal("check failed")
			}
		}
	})
}
