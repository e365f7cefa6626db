package kvtest

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// testCloseInFlight closes a client while many requests of both protocols
// are in flight. Close documents that they fail with ErrClosed: each must
// either complete or fail with ErrClosed, none may hang, panic or report
// another error, and Values obtained before the Close release harmlessly.
func testCloseInFlight(t *testing.T, env Env) {
	s, c := startWithClient(t, env, serverConfig(env), rdmakv.WithDepth(4))
	for i, n := range []int{100, 30000} {
		mustSet(t, c, []byte(fmt.Sprintf("cif-%d", i)), pattern(n, uint64(i)))
	}
	var wg sync.WaitGroup
	started := make(chan struct{}, 16)
	var mu sync.Mutex
	var held []*rdmakv.Value
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			noFault(t, fmt.Sprintf("worker %d racing client Close", w), func() { closeWorker(t, c, w, started, &mu, &held) })
		}()
	}
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()
	for range 16 {
		select {
		case <-started:
		case <-allDone: // workers failed early; their errors are reported
		}
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close with requests in flight: %v", err)
	}
	wg.Wait()
	for _, v := range held {
		v.Release()
		v.Release()
	}
	// The server noticed nothing wrong.
	c2 := dial(t, env, s.Addr())
	mustGetEqual(t, c2, []byte("cif-1"), pattern(30000, 1))
}

// closeWorker loops over both protocols until the client reports ErrClosed.
func closeWorker(t *testing.T, c *rdmakv.Client, w int, started chan<- struct{}, mu *sync.Mutex, held *[]*rdmakv.Value) {
	key := []byte(fmt.Sprintf("cif-%d", w%2))
	for op := 0; ; op++ {
		if op == 2 {
			started <- struct{}{}
		}
		var err error
		switch op % 3 {
		case 0:
			err = c.Set(opCtx(t), key, pattern([]int{100, 30000}[w%2], uint64(w%2)))
		case 1:
			var v *rdmakv.Value
			if v, err = c.Get(opCtx(t), key); err == nil {
				if op == 1 {
					// One Value per worker outlives the Close; more
					// eager ones would starve the receive queue.
					mu.Lock()
					*held = append(*held, v)
					mu.Unlock()
				} else {
					v.Release()
				}
			}
		case 2:
			err = c.Delete(opCtx(t), []byte("absent"))
			if errors.Is(err, rdmakv.ErrNotFound) {
				err = nil
			}
		}
		if errors.Is(err, rdmakv.ErrClosed) {
			return
		}
		if err != nil {
			t.Errorf("worker %d op %d racing Close: %v, want success or ErrClosed", w, op, err)
			return
		}
	}
}
