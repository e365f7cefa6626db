// Package benchtest has fake targets for testing the harness: an in-memory
// store with optional fixed latency, a one-time stall, a periodic stop,
// value corruption and operation recording.
package benchtest

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvbench/kvbench/internal/bench"
)

// Fake is an in-memory store. Set its fields before the first Dial.
type Fake struct {
	// Latency is added to every operation.
	Latency time.Duration
	// LatencyOf, when set, is added too: the n-th operation's (counting
	// from 1 over all connections), for a target whose speed changes.
	LatencyOf func(n int64) time.Duration
	// StallAt makes the StallAt-th operation (counting from 1 over all
	// connections) take Stall longer; 0 never stalls.
	StallAt int64
	Stall   time.Duration
	// StopEvery and StopFor stop the fake for StopFor at the start of
	// every StopEvery from its first Dial, as a server paused by a
	// periodic job would: an operation arriving then waits out the stop.
	StopEvery, StopFor time.Duration
	// Corrupt flips a byte of every value a get returns.
	Corrupt bool
	// Record keeps each connection's operation sequence.
	Record bool
	// NoStore makes the fake forget everything: sets succeed, gets and
	// deletes report not found. For overhead benchmarks.
	NoStore bool
	// FailEvery makes every FailEvery-th operation (counting from 1 over
	// all connections) fail with FailErr, without touching the store.
	FailEvery int64
	FailErr   error
	// Phases are added to every operation, one sleep each, and reported
	// as its phases (bench.OpPhasesFrom) when the run records them.
	Phases []Phase

	mu    sync.Mutex
	data  map[string][]byte
	conns []*Conn
	calls atomic.Int64
	// epoch is when the first Dial came, in Unix nanoseconds (StopEvery).
	epoch atomic.Int64
	// store, when set, holds the data instead (Share).
	store *Fake
}

// Share makes f keep its data in other's store, as several clients of one
// server do; f keeps its own connections and records.
func (f *Fake) Share(other *Fake) { f.store = other }

// db is the fake holding the data and its lock.
func (f *Fake) db() *Fake {
	if f.store != nil {
		return f.store.db()
	}
	return f
}

// Phase is a known time a fake operation spends in a phase.
type Phase struct {
	Phase bench.OpPhase
	Time  time.Duration
}

// Rec is one recorded operation.
type Rec struct {
	Op  bench.Op
	Key string
}

// Conn is one fake connection.
type Conn struct {
	f         *Fake
	threshold int
	log       []Rec
	logMu     sync.Mutex
	closed    atomic.Bool
}

// Dial implements bench.Dialer.
func (f *Fake) Dial(_ context.Context, threshold int) (bench.Conn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if d := f.db(); d != f {
		d.mu.Lock()
		defer d.mu.Unlock()
	}
	if db := f.db(); db.data == nil {
		db.data = map[string][]byte{}
	}
	f.epoch.CompareAndSwap(0, time.Now().UnixNano())
	c := &Conn{f: f, threshold: threshold}
	f.conns = append(f.conns, c)
	return c, nil
}

// Conns returns every connection dialed so far, in order.
func (f *Fake) Conns() []*Conn {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*Conn(nil), f.conns...)
}

// Len is the length of the value f holds for key, and whether it holds
// one.
func (f *Fake) Len(key string) (int, bool) {
	db := f.db()
	db.mu.Lock()
	defer db.mu.Unlock()
	v, ok := db.data[key]
	return len(v), ok
}

// Ops returns the operations recorded on c.
func (c *Conn) Ops() []Rec {
	c.logMu.Lock()
	defer c.logMu.Unlock()
	return append([]Rec(nil), c.log...)
}

// Threshold is the eager threshold c was dialed with.
func (c *Conn) Threshold() int { return c.threshold }

// Closed reports whether Close was called.
func (c *Conn) Closed() bool { return c.closed.Load() }

func (c *Conn) begin(ctx context.Context, op bench.Op, key []byte) error {
	if c.closed.Load() {
		return bench.ErrClosed
	}
	f := c.f
	if f.Record {
		c.logMu.Lock()
		c.log = append(c.log, Rec{op, string(key)})
		c.logMu.Unlock()
	}
	d := f.Latency
	n := f.calls.Add(1)
	if n == f.StallAt {
		d += f.Stall
	}
	d += f.stopLeft()
	if f.LatencyOf != nil {
		d += f.LatencyOf(n)
	}
	if d > 0 {
		time.Sleep(d)
	}
	for _, p := range f.Phases {
		time.Sleep(p.Time)
	}
	if f.FailEvery > 0 && n%f.FailEvery == 0 {
		return f.FailErr
	}
	if o := bench.OpPhasesFrom(ctx); o != nil {
		for _, p := range f.Phases {
			o.Set(p.Phase, int64(p.Time))
		}
	}
	return nil
}

// stopLeft is how much of a periodic stop (StopEvery) is left now.
func (f *Fake) stopLeft() time.Duration {
	if f.StopEvery <= 0 {
		return 0
	}
	if into := time.Duration(time.Now().UnixNano()-f.epoch.Load()) % f.StopEvery; into < f.StopFor {
		return f.StopFor - into
	}
	return 0
}

func (c *Conn) proto(n int) bench.Protocol {
	if n < c.threshold {
		return bench.Eager
	}
	return bench.Rendezvous
}

// Set implements bench.Target.
func (c *Conn) Set(ctx context.Context, key, value []byte) (bench.Protocol, error) {
	p := c.proto(len(key) + len(value))
	if err := c.begin(ctx, bench.OpSet, key); err != nil {
		return p, err
	}
	if c.f.NoStore {
		return p, nil
	}
	v := append([]byte(nil), value...)
	c.f.db().mu.Lock()
	c.f.db().data[string(key)] = v
	c.f.db().mu.Unlock()
	return p, nil
}

// Get implements bench.Target.
func (c *Conn) Get(ctx context.Context, key []byte, view func([]byte)) (bench.Protocol, error) {
	if err := c.begin(ctx, bench.OpGet, key); err != nil {
		return bench.Eager, err
	}
	if c.f.NoStore {
		return bench.Eager, bench.ErrNotFound
	}
	c.f.db().mu.Lock()
	v, ok := c.f.db().data[string(key)]
	var buf []byte
	if ok {
		buf = append(buf, v...)
	}
	c.f.db().mu.Unlock()
	if !ok {
		return bench.Eager, bench.ErrNotFound
	}
	if c.f.Corrupt && len(buf) > 0 {
		buf[len(buf)/2] ^= 0x40
	}
	if view != nil {
		view(buf)
	}
	return c.proto(len(key) + len(buf)), nil
}

// Delete implements bench.Target.
func (c *Conn) Delete(ctx context.Context, key []byte) (bench.Protocol, error) {
	if err := c.begin(ctx, bench.OpDelete, key); err != nil {
		return bench.Eager, err
	}
	if c.f.NoStore {
		return bench.Eager, bench.ErrNotFound
	}
	c.f.db().mu.Lock()
	_, ok := c.f.db().data[string(key)]
	delete(c.f.db().data, string(key))
	c.f.db().mu.Unlock()
	if !ok {
		return bench.Eager, bench.ErrNotFound
	}
	return bench.Eager, nil
}

// Close implements bench.Conn.
func (c *Conn) Close() error {
	c.closed.Store(true)
	return nil
}
