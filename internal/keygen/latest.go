package keygen

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
)

// Counter counts inserts; the writer that inserts key i stores i+1 (or
// adds one per insert, in order). *atomic.Int64 is a Counter.
type Counter = atomic.Int64

// LatestGen favours recently inserted keys: with c = inserts so far, the
// most recent key is (c-1) mod n and a key k steps older is chosen with
// zipfian probability in k, as YCSB's SkewedLatestGenerator does. Before
// anything is inserted it returns 0.
type LatestGen struct {
	n        int64
	z        *ZipfianGen
	inserted *Counter
}

// NewLatest returns a latest generator over [0, n) reading the insert
// counter c, which may be advanced concurrently by writers.
func NewLatest(n int64, theta float64, c *Counter) (*LatestGen, error) {
	if c == nil {
		return nil, fmt.Errorf("keygen: latest needs an insert counter")
	}
	z, err := NewZipfian(n, theta)
	if err != nil {
		return nil, err
	}
	return &LatestGen{n: n, z: z, inserted: c}, nil
}

// Next returns an index in [0, n).
func (l *LatestGen) Next(r *rand.Rand) int64 {
	c := l.inserted.Load()
	if c <= 0 {
		return 0
	}
	avail := min(c, l.n)
	back := l.z.Next(r)
	if back >= avail {
		// Fewer keys inserted than the zipfian spans: fold the tail back
		// into the inserted range rather than redraw, keeping Next O(1).
		back %= avail
	}
	return ((c-1)%l.n - back + l.n) % l.n
}
