package trace

// hashSet is a set of 64-bit hashes by open addressing (linear probing
// in a power-of-two table at most half full): 16 bytes a member at worst,
// and one probe into memory per insert where a Go map takes several.
// The hashes are xxhash's, well mixed, so their low bits index the table.
type hashSet struct {
	slots []uint64 // 0 is an empty slot; the hash 0 is kept in zero
	n     int      // members in slots
	zero  bool
}

func (s *hashSet) len() int {
	if s.zero {
		return s.n + 1
	}
	return s.n
}

func (s *hashSet) add(h uint64) {
	if h == 0 {
		s.zero = true
		return
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return
		case 0:
			s.slots[i] = h
			s.n++
			return
		}
	}
}

func (s *hashSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(2*len(old), 1024))
	s.n = 0
	for _, h := range old {
		if h != 0 {
			s.add(h)
		}
	}
}
