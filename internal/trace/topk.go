package trace

import (
	"cmp"
	"slices"
)

// topK counts the most requested keys in bounded memory: the Space-Saving
// algorithm (Metwally, Agrawal and El Abbadi, "Efficient Computation of
// Frequent and Top-k Elements in Data Streams", ICDT 2005). It keeps
// capacity counters; a key without one takes the smallest counter's,
// inheriting its count as its possible overcount (err). While no counter
// has been taken over (evicted is 0) every count is exact. Otherwise a
// key's count is at most err too high and every key requested more than
// requests/capacity times holds a counter.
//
// Keys are told apart by a 64-bit hash. The counters sit in a min-heap
// on count so that the smallest is found at once; the heap holds counter
// numbers and each counter its heap position, so that reordering the heap
// moves small integers and never touches the map.
type topK struct {
	capacity int
	index    map[uint64]int32 // hash -> counter
	counters []kcounter
	heap     []int32 // counters, a min-heap on count
	evicted  int64
}

type kcounter struct {
	hash  uint64
	count int64
	err   int64
	pos   int32 // in heap
	key   []byte
}

func newTopK(capacity int) *topK {
	return &topK{capacity: capacity, index: make(map[uint64]int32, capacity)}
}

func (t *topK) add(h uint64, key []byte) {
	if i, ok := t.index[h]; ok {
		c := &t.counters[i]
		c.count++
		t.down(int(c.pos))
		return
	}
	if len(t.counters) < t.capacity {
		i := int32(len(t.counters))
		t.counters = append(t.counters, kcounter{hash: h, count: 1, pos: i, key: append([]byte(nil), key...)})
		t.heap = append(t.heap, i)
		t.index[h] = i
		t.up(int(i))
		return
	}
	t.evicted++
	i := t.heap[0]
	c := &t.counters[i]
	delete(t.index, c.hash)
	c.hash, c.err = h, c.count
	c.count++
	c.key = append(c.key[:0], key...)
	t.index[h] = i
	t.down(0)
}

func (t *topK) less(i, j int) bool { return t.counters[t.heap[i]].count < t.counters[t.heap[j]].count }

func (t *topK) swap(i, j int) {
	t.heap[i], t.heap[j] = t.heap[j], t.heap[i]
	t.counters[t.heap[i]].pos = int32(i)
	t.counters[t.heap[j]].pos = int32(j)
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !t.less(i, p) {
			return
		}
		t.swap(i, p)
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && t.less(r, l) {
			m = r
		}
		if !t.less(m, i) {
			return
		}
		t.swap(i, m)
		i = m
	}
}

// sorted returns the counters, most requested first (ties by key).
func (t *topK) sorted() []kcounter {
	out := slices.Clone(t.counters)
	slices.SortFunc(out, func(a, b kcounter) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return slices.Compare(a.key, b.key)
	})
	return out
}
