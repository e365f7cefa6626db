package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// faultTally counts what the fault schedule did and what went wrong.
type faultTally struct {
	Stops, Kills, Churned, Abandoned   atomic.Int64
	Floods, Idle, IdleDropped          atomic.Int64
	Garbage, GarbageDropped, ChurnFail atomic.Int64

	mu        sync.Mutex
	failures  []string
	SlowDials int    // churn dials that took longer than stuckAfter
	slowSnap  string // the sockets of the first of them
}

func (t *faultTally) fail(format string, a ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.failures) < 10 {
		t.failures = append(t.failures, fmt.Sprintf(format, a...))
	}
}

// faults runs the fault schedule until ctx ends.
type faults struct {
	o      options
	srv    *server
	victim *loader
	dial   func(context.Context) (*rdmakv.Client, error)
	t      *faultTally
	rng    *rand.Rand
	mu     sync.Mutex // guards rng
}

// dropWithin bounds the wait for the server to drop an idle or garbage
// connection: its handshake deadline, then the hang guard. The wait ends
// as soon as the server drops it, a couple of seconds in; only a
// connection the server never drops waits it out.
const dropWithin = handshake + waitWithin

// slowDial keeps the first socket snapshot of a churn dial that took
// longer than stuckAfter, failed or not, for the report.
func (t *faultTally) slowDial(snap string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.SlowDials++
	if t.slowSnap == "" {
		t.slowSnap = snap
	}
}

func (f *faults) jitter(base time.Duration) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return base/2 + time.Duration(f.rng.Int64N(int64(base)))
}

// every calls fn at jittered intervals around base until ctx ends.
func every(ctx context.Context, wg *sync.WaitGroup, base func() time.Duration, fn func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(base()):
				fn()
			}
		}
	}()
}

func (f *faults) run(ctx context.Context) {
	var wg sync.WaitGroup
	every(ctx, &wg, func() time.Duration { return f.jitter(10 * time.Second) }, f.stopServer)
	every(ctx, &wg, func() time.Duration { return f.jitter(4 * time.Second) }, func() {
		if f.victim.kill() {
			f.t.Kills.Add(1)
		}
	})
	every(ctx, &wg, func() time.Duration { return f.jitter(8 * time.Second) }, func() { f.flood(ctx) })
	every(ctx, &wg, func() time.Duration { return f.jitter(2 * time.Second) }, func() { f.garbage(ctx) })
	wg.Add(1)
	go func() { defer wg.Done(); f.churn(ctx) }()
	wg.Wait()
}

// stopServer freezes the whole server process for one second.
func (f *faults) stopServer() {
	if err := f.srv.stop(); err != nil {
		f.t.fail("SIGSTOP kvserver: %v", err)
		return
	}
	time.Sleep(time.Second)
	if err := f.srv.resume(); err != nil {
		f.t.fail("SIGCONT kvserver: %v", err)
	}
	f.t.Stops.Add(1)
}

// churn opens connections, moves a value each way and closes them, one
// after another; every fourth is closed under a rendezvous get instead.
func (f *faults) churn(ctx context.Context) {
	val := make([]byte, 64<<10)
	for i := 0; !ended(ctx); i++ {
		var c *rdmakv.Client
		var err error
		stuck := watchDial(f.srv.addr, func() { c, err = f.dial(ctx) })
		if stuck != "" {
			f.t.slowDial(stuck)
		}
		if err != nil {
			if !ended(ctx) {
				f.t.ChurnFail.Add(1)
				f.t.fail("churn dial: %v\n%s", err, stuck)
				time.Sleep(100 * time.Millisecond)
			}
			continue
		}
		key := fmt.Appendf(nil, "churn-%d", i%8)
		n := 1 << 10
		if i%2 == 1 {
			n = len(val)
		}
		for j := range n {
			val[j] = byte(i + j)
		}
		if i%4 == 3 {
			f.abandon(ctx, c, key)
			continue
		}
		if err := roundTrip(ctx, c, key, val[:n]); err != nil && !ended(ctx) {
			f.t.ChurnFail.Add(1)
			f.t.fail("churn connection %d: %v", i, err)
		}
		c.Close()
		f.t.Churned.Add(1)
	}
}

// roundTrip sets, reads back and deletes one value.
func roundTrip(ctx context.Context, c *rdmakv.Client, key, val []byte) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if err := c.Set(ctx, key, val); err != nil {
		return fmt.Errorf("set: %w", err)
	}
	v, err := c.Get(ctx, key)
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	same := bytes.Equal(v.Bytes(), val)
	v.Release()
	if !same {
		return errors.New("get returned other bytes than the set wrote")
	}
	if err := c.Delete(ctx, key); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return nil
}

// abandon starts rendezvous gets and closes the client under them.
func (f *faults) abandon(ctx context.Context, c *rdmakv.Client, key []byte) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	big := make([]byte, 256<<10)
	if err := c.Set(ctx, key, big); err != nil {
		c.Close()
		return
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := c.Get(ctx, key); err == nil {
				v.Release()
			}
		}()
	}
	time.Sleep(time.Millisecond)
	c.Close()
	wg.Wait()
	f.t.Abandoned.Add(1)
}
