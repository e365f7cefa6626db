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
// Keys are told apart by a 64-bit hash; the counters sit in a min-heap on
// count so that the smallest is found at once.
type topK struct {
	capacity int
	index    map[uint64]int32 // hash -> heap position
	heap     []kcounter
	evicted  int64
}

type kcounter struct {
	hash  uint64
	count int64
	err   int64
	key   []byte
}

func newTopK(capacity int) *topK {
	return &topK{capacity: capacity, index: make(map[uint64]int32, capacity)}
}

func (t *topK) add(h uint64, key []byte) {
	if i, ok := t.index[h]; ok {
		t.heap[i].count++
		t.down(int(i))
		return
	}
	if len(t.heap) < t.capacity {
		t.heap = append(t.heap, kcounter{hash: h, count: 1, key: append([]byte(nil), key...)})
		t.index[h] = int32(len(t.heap) - 1)
		t.up(len(t.heap) - 1)
		return
	}
	t.evicted++
	c := &t.heap[0]
	delete(t.index, c.hash)
	c.hash, c.err = h, c.count
	c.count++
	c.key = append(c.key[:0], key...)
	t.index[h] = 0
	t.down(0)
}

func (t *topK) less(i, j int) bool { return t.heap[i].count < t.heap[j].count }

func (t *topK) swap(i, j int) {
	t.heap[i], t.heap[j] = t.heap[j], t.heap[i]
	t.index[t.heap[i].hash] = int32(i)
	t.index[t.heap[j].hash] = int32(j)
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
	out := slices.Clone(t.heap)
	slices.SortFunc(out, func(a, b kcounter) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return slices.Compare(a.key, b.key)
	})
	return out
}
