package kvtest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kvbench/kvbench/rdmakv"
)

// testServerCloseInFlight closes the server under clients busy with both
// protocols. Every operation must complete correctly or fail; none may
// hang, fault, or return wrong bytes; once the server is gone the clients
// report ErrClosed.
func testServerCloseInFlight(t *testing.T, env Env) {
	s := startServer(t, serverConfig(env))
	const workers = 4
	clients := dialN(t, env, s.Addr(), workers)
	sizes := []int{100, 200000}
	for i, n := range sizes {
		mustSet(t, clients[0], []byte(fmt.Sprintf("sc-%d", i)), pattern(n, uint64(i)))
	}
	var wg sync.WaitGroup
	started := make(chan struct{}, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clients[w]
			noFault(t, fmt.Sprintf("worker %d racing server Close", w), func() {
				for op := 0; ; op++ {
					if op == 4 {
						started <- struct{}{}
					}
					k := (w + op) % 2
					key := []byte(fmt.Sprintf("sc-%d", k))
					var err error
					if op%2 == 0 {
						err = c.Set(opCtx(t), key, pattern(sizes[k], uint64(k)))
					} else {
						var v *rdmakv.Value
						if v, err = c.Get(opCtx(t), key); err == nil {
							if msg := diffBytes(v.Bytes(), pattern(sizes[k], uint64(k))); msg != "" {
								t.Errorf("worker %d: Get(%s) racing server Close returned wrong bytes: %s", w, key, msg)
							}
							v.Release()
						}
					}
					if err != nil {
						// Whatever the first failure, the client must now
						// say it is closed.
						if err2 := c.Delete(opCtx(t), key); !errors.Is(err2, rdmakv.ErrClosed) {
							t.Errorf("worker %d: after a failure (%v) racing server Close, next op: %v, want ErrClosed", w, err, err2)
						}
						return
					}
				}
			})
		}()
	}
	// A worker that fails before it has started returns early; wait for
	// the others rather than for a start that never comes, so the failure
	// is reported instead of tripping the hang guard.
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()
	for range workers {
		select {
		case <-started:
		case <-allDone:
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("server Close with clients busy: %v", err)
	}
	wg.Wait()
}

// testHeldValueSurvivesServer holds Values of both protocols while the
// server goes away. A Value is documented valid until Release (or the
// client's own Close), so losing the server must not pull its memory away.
func testHeldValueSurvivesServer(t *testing.T, env Env) {
	s, c := startWithClient(t, env, serverConfig(env))
	small, big := pattern(100, 1), pattern(200000, 2)
	mustSet(t, c, []byte("small"), small)
	mustSet(t, c, []byte("big"), big)
	vs, err := c.Get(opCtx(t), []byte("small"))
	if err != nil {
		t.Fatalf("Get(small): %v", err)
	}
	vb, err := c.Get(opCtx(t), []byte("big"))
	if err != nil {
		t.Fatalf("Get(big): %v", err)
	}
	s.Close()
	// Wait until the client has noticed the server is gone.
	deadline := time.Now().Add(15 * time.Second)
	for {
		v, err := c.Get(opCtx(t), []byte("small"))
		if err != nil {
			if !errors.Is(err, rdmakv.ErrClosed) {
				t.Errorf("Get after the server closed: %v, want ErrClosed", err)
			}
			break
		}
		v.Release()
		if time.Now().After(deadline) {
			t.Fatalf("Get still succeeds 15s after the server closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The transport tears down asynchronously after the client has seen
	// the loss; keep checking for a while so an unmapping is caught.
	for i := 0; i < 20; i++ {
		ok := noFault(t, "reading a held eager Value after the server closed", func() {
			if msg := diffBytes(vs.Bytes(), small); msg != "" {
				t.Errorf("held eager Value after the server closed: %s", msg)
			}
		}) && noFault(t, "reading a held rendezvous Value after the server closed", func() {
			if msg := diffBytes(vb.Bytes(), big); msg != "" {
				t.Errorf("held rendezvous Value after the server closed: %s", msg)
			}
		})
		if !ok || t.Failed() {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	vs.Release()
	vb.Release()
	if err := c.Close(); err != nil && !errors.Is(err, rdmakv.ErrClosed) {
		t.Errorf("client Close after losing the server: %v", err)
	}
}
