package kvtest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// testStagingOverflow uses a staging region far smaller than the values:
// WithStagingSize documents that a value that does not fit gets a
// temporary region for that request, so sets and gets of any size must
// still work, held rendezvous Values included, also concurrently.
func testStagingOverflow(t *testing.T, env Env) {
	const staging = 64 << 10
	_, c := startWithClient(t, env, serverConfig(env), rdmakv.WithStagingSize(staging))
	sizes := []int{8000, staging / 2, staging, staging + 1, 1 << 20}
	for i, n := range sizes {
		t.Run(sizeName(int64(n)), func(t *testing.T) {
			roundTrip(t, c, []byte(fmt.Sprintf("stage-%d", n)), n, uint64(i), rdmakv.Rendezvous)
		})
	}
	// Hold several rendezvous Values whose total is many times the staging.
	var held []*rdmakv.Value
	for i, n := range sizes {
		v, err := c.Get(opCtx(t), []byte(fmt.Sprintf("stage-%d", n)))
		if err != nil {
			t.Fatalf("Get #%d while holding %d rendezvous Values (staging %d bytes): %v", i, len(held), staging, err)
		}
		held = append(held, v)
	}
	for i, v := range held {
		if msg := diffBytes(v.Bytes(), pattern(sizes[i], uint64(i))); msg != "" {
			t.Errorf("held Value %d (%d bytes, staging %d): %s", i, sizes[i], staging, msg)
		}
		v.Release()
	}
	// Concurrent rendezvous traffic larger than the staging.
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 4 {
				key := []byte(fmt.Sprintf("stage-w%d-%d", w, j))
				val := pattern(48<<10+w*1000+j, uint64(w*10+j))
				if err := c.Set(opCtx(t), key, val); err != nil {
					t.Errorf("worker %d: Set %d bytes: %v", w, len(val), err)
					return
				}
				v, err := c.Get(opCtx(t), key)
				if err != nil {
					t.Errorf("worker %d: Get: %v", w, err)
					return
				}
				if msg := diffBytes(v.Bytes(), val); msg != "" {
					t.Errorf("worker %d: Get(%s): %s", w, key, msg)
				}
				v.Release()
			}
		}()
	}
	wg.Wait()
}
