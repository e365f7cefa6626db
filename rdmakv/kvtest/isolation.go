package kvtest

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

// testRendezvousGetIsolation races rendezvous Gets of a large value against
// overwrites and deletes of the same key from another client. A Get in
// flight while the value is replaced must still deliver one whole value,
// never a mix of old and new bytes or bytes of a freed and reused buffer.
func testRendezvousGetIsolation(t *testing.T, env Env) {
	s, reader := startWithClient(t, env, serverConfig(env))
	writer := dial(t, env, s.Addr())
	n := int(min(env.MaxValue, 1<<20))
	if n < 64<<10 {
		n = int(env.MaxValue)
	}
	key := []byte("isolated")
	other := []byte("isolated-neighbour") // reuses freed space
	mustSet(t, writer, key, makeSelfChecking(key, stamp{1, 1, 0}, n))

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for seq := uint64(1); !stop.Load(); seq++ {
			var err error
			switch seq % 3 {
			case 0:
				err = writer.Delete(opCtx(t), key)
				if errors.Is(err, rdmakv.ErrNotFound) {
					err = nil
				}
			case 1:
				err = writer.Set(opCtx(t), key, makeSelfChecking(key, stamp{1, 1, seq}, n-int(seq%7)))
			case 2:
				err = writer.Set(opCtx(t), other, pattern(n, seq))
			}
			if err != nil {
				t.Errorf("writer op %d: %v", seq, err)
				return
			}
		}
	}()
	var found int
	for i := 0; i < 40; i++ {
		v, err := reader.Get(opCtx(t), key)
		if errors.Is(err, rdmakv.ErrNotFound) {
			continue
		}
		if err != nil {
			t.Errorf("reader Get #%d: %v", i, err)
			break
		}
		found++
		if v.Protocol() != rdmakv.Rendezvous {
			t.Errorf("reader Get #%d of a %d-byte value answered %v, want rendezvous", i, len(v.Bytes()), v.Protocol())
		}
		if _, err := checkSelfChecking(key, 1, v.Bytes()); err != nil {
			t.Errorf("reader Get #%d raced with overwrite/delete and returned a torn value: %v", i, err)
		}
		v.Release()
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d of 40 racing Gets found the key", found)
}
