package buddy

import (
	"errors"
	"math/rand/v2"
	"testing"
)

func mustNew(t *testing.T, size, min int) *Allocator {
	t.Helper()
	a, err := New(size, min)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestNewRejects(t *testing.T) {
	for _, c := range [][2]int{{0, 64}, {100, 64}, {1024, 0}, {1024, 48}, {-64, 64}} {
		if _, err := New(c[0], c[1]); err == nil {
			t.Errorf("New(%d, %d) accepted", c[0], c[1])
		}
	}
}

func TestAllocFreeCoalesce(t *testing.T) {
	a := mustNew(t, 1024, 64)
	offs := map[int]bool{}
	for i := 0; i < 16; i++ {
		off, err := a.Alloc(1)
		if err != nil {
			t.Fatalf("alloc %d: %v", i, err)
		}
		if off%64 != 0 || off >= 1024 || offs[off] {
			t.Fatalf("bad or duplicate offset %d", off)
		}
		offs[off] = true
	}
	if _, err := a.Alloc(1); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("17th alloc: %v, want ErrNoSpace", err)
	}
	for off := range offs {
		if n, err := a.Free(off); err != nil || n != 64 {
			t.Fatalf("free %d: %d, %v", off, n, err)
		}
	}
	if a.Used() != 0 {
		t.Fatalf("used %d after freeing all", a.Used())
	}
	// Everything coalesced: the whole range is one block again.
	off, err := a.Alloc(1024)
	if err != nil || off != 0 {
		t.Fatalf("whole-range alloc after coalescing: %d, %v", off, err)
	}
}

func TestSizesAndBadFree(t *testing.T) {
	a := mustNew(t, 4096, 64)
	off, err := a.Alloc(65)
	if err != nil {
		t.Fatal(err)
	}
	if a.BlockSize(65) != 128 || a.Used() != 128 {
		t.Fatalf("block size %d, used %d", a.BlockSize(65), a.Used())
	}
	if _, err := a.Free(off + 64); !errors.Is(err, ErrBadFree) {
		t.Fatalf("free inside block: %v", err)
	}
	if _, err := a.Free(off + 1); !errors.Is(err, ErrBadFree) {
		t.Fatalf("free unaligned: %v", err)
	}
	if _, err := a.Free(4096); !errors.Is(err, ErrBadFree) {
		t.Fatalf("free past end: %v", err)
	}
	if n, err := a.Free(off); err != nil || n != 128 {
		t.Fatalf("free: %d %v", n, err)
	}
	if _, err := a.Free(off); !errors.Is(err, ErrBadFree) {
		t.Fatalf("double free: %v", err)
	}
	if _, err := a.Alloc(0); err == nil {
		t.Fatal("Alloc(0) accepted")
	}
	if _, err := a.Alloc(8192); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("oversize: %v", err)
	}
}

func TestNonPowerOfTwo(t *testing.T) {
	a := mustNew(t, 3*64, 64)
	var got []int
	for {
		off, err := a.Alloc(64)
		if err != nil {
			break
		}
		got = append(got, off)
	}
	if len(got) != 3 {
		t.Fatalf("got %d blocks from a 3-block range: %v", len(got), got)
	}
	for _, off := range got {
		if off >= 192 {
			t.Fatalf("offset %d past the range", off)
		}
	}
	if _, err := a.Alloc(256); !errors.Is(err, ErrNoSpace) {
		t.Fatalf("alloc of padded size: %v", err)
	}
}

// TestModel drives the allocator and a naive model (a byte map of owners)
// with random operations and checks they agree: blocks never overlap, stay
// in range, are aligned to their size, and accounting matches.
func TestModel(t *testing.T) {
	const size, min = 64 * 1024, 64
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 1))
		a := mustNew(t, size-min*r.IntN(3), min)
		owner := make([]int, size/min) // 0 = free, else block id
		live := map[int]int{}          // off -> block size
		id := 0
		for step := 0; step < 3000; step++ {
			if len(live) > 0 && r.IntN(2) == 0 {
				// free a random live block
				var off int
				k := r.IntN(len(live))
				for o := range live {
					if k == 0 {
						off = o
						break
					}
					k--
				}
				n, err := a.Free(off)
				if err != nil || n != live[off] {
					t.Fatalf("seed %d: free %d: %d %v, want %d", seed, off, n, err, live[off])
				}
				for i := off / min; i < (off+n)/min; i++ {
					owner[i] = 0
				}
				delete(live, off)
				continue
			}
			n := 1 + r.IntN(4096)
			off, err := a.Alloc(n)
			bs := a.BlockSize(n)
			if err != nil {
				if !errors.Is(err, ErrNoSpace) {
					t.Fatal(err)
				}
				// The model must agree no aligned free run of bs exists.
				for s := 0; s+bs <= a.Size(); s += bs {
					free := true
					for i := s / min; i < (s+bs)/min; i++ {
						if owner[i] != 0 {
							free = false
							break
						}
					}
					if free {
						t.Fatalf("seed %d: ErrNoSpace for %d bytes but [%d,%d) is free", seed, n, s, s+bs)
					}
				}
				continue
			}
			if off%bs != 0 || off+bs > a.Size() {
				t.Fatalf("seed %d: block %d+%d misaligned or out of range", seed, off, bs)
			}
			id++
			for i := off / min; i < (off+bs)/min; i++ {
				if owner[i] != 0 {
					t.Fatalf("seed %d: block %d+%d overlaps block %d", seed, off, bs, owner[i])
				}
				owner[i] = id
			}
			live[off] = bs
		}
		used := 0
		for _, n := range live {
			used += n
		}
		if used != a.Used() {
			t.Fatalf("seed %d: used %d, model %d", seed, a.Used(), used)
		}
		for off := range live {
			if _, err := a.Free(off); err != nil {
				t.Fatal(err)
			}
		}
		if a.Used() != 0 {
			t.Fatalf("seed %d: used %d after freeing everything", seed, a.Used())
		}
	}
}

func BenchmarkAllocFree(b *testing.B) {
	a, _ := New(64<<20, 64)
	b.ReportAllocs()
	for b.Loop() {
		off, err := a.Alloc(4096)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := a.Free(off); err != nil {
			b.Fatal(err)
		}
	}
}
