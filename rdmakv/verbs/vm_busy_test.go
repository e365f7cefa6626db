//go:build rdmavm && linux && cgo

package verbs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
	"github.com/kvbench/kvbench/rdmakv/transport"
)

// busyPair starts an rdmakv server and dials clients, both in busy mode,
// so waiting callers drive the completion queues themselves.
func busyPair(t *testing.T, clients, depth int) (*rdmakv.Server, []*rdmakv.Client) {
	t.Helper()
	srv, err := rdmakv.Listen(rdmakv.ServerConfig{
		Listen: os.Getenv("RDMAKV_ADDR") + ":0", Transport: Name, PoolSize: 16 << 20, Poll: transport.PollBusy,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cs := make([]*rdmakv.Client, clients)
	for i := range cs {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		c, err := rdmakv.Dial(ctx, srv.Addr(), rdmakv.WithTransport(Name), rdmakv.WithPoll(transport.PollBusy),
			rdmakv.WithDepth(depth), rdmakv.WithTimeout(30*time.Second))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		cs[i] = c
	}
	return srv, cs
}

// TestCallerPolling runs several goroutines per client in busy mode, so
// one waiter at a time polls and dispatches the others' replies, across
// eager and rendezvous sizes; every value read back must be the one
// written.
func TestCallerPolling(t *testing.T) {
	_, cs := busyPair(t, 2, 4)
	guard(t, 120*time.Second, func() {
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for ci, c := range cs {
			for g := 0; g < 4; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx := context.Background()
					for i, n := range []int{1, 64, 3000, 5000, 64 << 10, 100 << 10, 0, 200} {
						key := []byte(fmt.Sprintf("busy-%d-%d-%d", ci, g, i))
						val := pattern(n, byte(ci*16+g*4+i))
						if err := c.Set(ctx, key, val); err != nil {
							errs <- fmt.Errorf("set %s (%d bytes): %w", key, n, err)
							return
						}
						v, err := c.Get(ctx, key)
						if err != nil {
							errs <- fmt.Errorf("get %s: %w", key, err)
							return
						}
						if !bytes.Equal(v.Bytes(), val) {
							errs <- fmt.Errorf("get %s: %d bytes differ from the %d written", key, len(v.Bytes()), n)
						}
						v.Release()
						if err := c.Delete(ctx, key); err != nil {
							errs <- fmt.Errorf("delete %s: %w", key, err)
							return
						}
					}
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

// TestCallerPollingZeroAllocs: the busy-mode wait loop allocates nothing
// per GET or SET, eager or rendezvous (client and server both).
func TestCallerPollingZeroAllocs(t *testing.T) {
	_, cs := busyPair(t, 1, 1)
	c := cs[0]
	ctx := context.Background()
	for _, n := range []int{64, 64 << 10} {
		key := []byte(fmt.Sprintf("alloc-%d", n))
		if err := c.Set(ctx, key, pattern(n, 3)); err != nil {
			t.Fatal(err)
		}
		var failed error
		get := func() {
			v, err := c.Get(ctx, key)
			if err != nil {
				if failed == nil {
					failed = err
				}
				return
			}
			if len(v.Bytes()) != n && failed == nil {
				failed = fmt.Errorf("got %d bytes, want %d", len(v.Bytes()), n)
			}
			v.Release()
		}
		allocs := testing.AllocsPerRun(100, get)
		if failed != nil {
			t.Fatalf("GET %d bytes: %v", n, failed)
		}
		if allocs != 0 {
			t.Errorf("GET %d bytes: %.1f allocations per op in busy mode", n, allocs)
		}
		val := pattern(n, 4)
		allocs = testing.AllocsPerRun(100, func() {
			if err := c.Set(ctx, key, val); err != nil && failed == nil {
				failed = err
			}
		})
		if failed != nil {
			t.Fatalf("SET %d bytes: %v", n, failed)
		}
		if allocs != 0 {
			t.Errorf("SET %d bytes: %.1f allocations per op in busy mode", n, allocs)
		}
	}
}

// TestPollerModes: only a busy client connection lets callers poll; a
// server connection's shared CQ and event mode never do. A busy client
// polling from its own goroutine gets every echo, in order, whichever
// goroutine dispatched it.
func TestPollerModes(t *testing.T) {
	for _, pm := range polls() {
		t.Run(pm.name, func(t *testing.T) {
			cfg := testConfig(pm.p)
			s := startServer(t, cfg, true)
			rec := newRecorder(false)
			c := dialTest(t, s, cfg, rec)
			sc, _ := s.accepted(t)
			cp, ok := c.(transport.Poller)
			if !ok {
				t.Fatal("verbs connection is not a transport.Poller")
			}
			if got, want := cp.CallerPolls(), pm.p == transport.PollBusy; got != want {
				t.Errorf("client CallerPolls = %v, want %v", got, want)
			}
			if sc.(transport.Poller).CallerPolls() || sc.(transport.Poller).PollOnce() {
				t.Error("server connection offers caller polling")
			}
			guard(t, 30*time.Second, func() {
				for i := 0; i < 20; i++ {
					if err := c.Send([]byte{byte(i)}, nil, nil); err != nil {
						t.Fatal(err)
					}
					if pm.p == transport.PollBusy {
						for len(rec.msgs) == 0 {
							cp.PollOnce()
						}
					} else if cp.PollOnce() {
						t.Fatal("PollOnce did something in event mode")
					}
					if g := rec.next(t); len(g.data) != 1 || g.data[0] != byte(i) {
						t.Fatalf("echo %d: got %v", i, g.data)
					}
				}
			})
		})
	}
}

// TestBusyIdleNaps: a busy listener with BusyIdle sleeps on its completion
// channel once nothing arrives, and the next message wakes it; every echo
// comes back across several naps. Without BusyIdle the receive CQ has no
// channel to sleep on.
func TestBusyIdleNaps(t *testing.T) {
	cfg := testConfig(transport.PollBusy)
	plain := startServer(t, cfg, true)
	if q := plain.listener().g.rcq; q.idle != 0 || q.f != nil {
		t.Errorf("busy listener without BusyIdle: idle %v, channel %v", q.idle, q.f != nil)
	}
	cfg.BusyIdle = time.Millisecond
	s := startServer(t, cfg, true)
	q := s.listener().g.rcq
	rec := newRecorder(false)
	c := dialTest(t, s, cfg, rec)
	guard(t, 60*time.Second, func() {
		// Each message goes out once the poller has begun a nap it took
		// after the previous echo, so it is what wakes the poller.
		var seen uint64
		for i := 0; i < 5; i++ {
			for q.naps.Load() <= seen {
				time.Sleep(time.Millisecond)
			}
			seen = q.naps.Load()
			if err := c.Send([]byte{byte(i)}, nil, nil); err != nil {
				t.Fatal(err)
			}
			if g := rec.next(t); len(g.data) != 1 || g.data[0] != byte(i) {
				t.Fatalf("echo %d after a nap: got %v", i, g.data)
			}
		}
	})
}

// TestBusyPollRaisesProcs: a process pinned to one CPU starts with
// GOMAXPROCS 1; opening a busy-polled connection raises it to
// minBusyProcs, and an event-driven one leaves it alone.
func TestBusyPollRaisesProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	s := startServer(t, testConfig(transport.PollEvent), true)
	dialTest(t, s, testConfig(transport.PollEvent), newRecorder(false))
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("event-mode connection: GOMAXPROCS %d, want it left at 1", n)
	}
	dialTest(t, s, testConfig(transport.PollBusy), newRecorder(false))
	if n := runtime.GOMAXPROCS(0); n != minBusyProcs {
		t.Fatalf("busy-mode connection: GOMAXPROCS %d, want %d", n, minBusyProcs)
	}
}
