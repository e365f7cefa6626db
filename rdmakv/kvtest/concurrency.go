package kvtest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kvbench/kvbench/rdmakv"
)

const (
	concKeys  = 8
	threshold = 4096 // the client default
)

// concSizes straddle the default threshold (key+value at T-1, T, T+1 for
// the suite's keys) and reach well into rendezvous.
func concSizes(keyLen int) []int {
	return []int{scHeader, 100, threshold - keyLen - 1, threshold - keyLen, threshold - keyLen + 1, 9000, 70000}
}

// stress is a set of writers/readers on overlapping keys with self-checking
// values. Every Get must return a valid value for that key, or NotFound
// while no write to it had completed; per worker, a writer's sequence
// numbers never go back; a worker sees its own latest write or a newer
// one; after the run each key holds the last write of one of the workers.
type stress struct {
	keys      [][]byte
	written   [concKeys]atomic.Bool // a Set to the key has returned
	lastWrite [][concKeys]uint64    // per worker, written only by it
}

func newStress(workers int, tag string) *stress {
	st := &stress{keys: make([][]byte, concKeys), lastWrite: make([][concKeys]uint64, workers)}
	for i := range st.keys {
		st.keys[i] = []byte(fmt.Sprintf("%s-%02d", tag, i))
	}
	return st
}

// run starts one goroutine per worker; clientOf maps a worker to the
// client it uses (several workers may share one).
func (st *stress) run(t *testing.T, workers, ops int, clientOf func(w int) *rdmakv.Client) {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.worker(t, w, ops, clientOf(w))
		}()
	}
	wg.Wait()
}

func (st *stress) worker(t *testing.T, w, ops int, c *rdmakv.Client) {
	rng := rand.New(rand.NewPCG(uint64(w), 42))
	var seq uint64
	seen := map[[2]uint32]uint64{} // (key, writer) -> highest seq read
	for op := range ops {
		k := rng.IntN(concKeys)
		key := st.keys[k]
		if rng.IntN(2) == 0 {
			seq++
			sizes := concSizes(len(key))
			val := makeSelfChecking(key, stamp{uint32(k), uint32(w), seq}, sizes[rng.IntN(len(sizes))])
			if err := c.Set(opCtx(t), key, val); err != nil {
				t.Errorf("worker %d op %d: Set(%s, %d bytes): %v", w, op, key, len(val), err)
				return
			}
			st.lastWrite[w][k] = seq
			st.written[k].Store(true)
			continue
		}
		wasWritten := st.written[k].Load()
		v, err := c.Get(opCtx(t), key)
		if errors.Is(err, rdmakv.ErrNotFound) {
			if wasWritten {
				t.Errorf("worker %d op %d: Get(%s) = NotFound after a Set to it had completed (lost write)", w, op, key)
			}
			continue
		}
		if err != nil {
			t.Errorf("worker %d op %d: Get(%s): %v", w, op, key, err)
			return
		}
		s, err := checkSelfChecking(key, uint32(k), v.Bytes())
		n, proto := len(v.Bytes()), v.Protocol()
		v.Release()
		if err != nil {
			t.Errorf("worker %d op %d: Get(%s) returned a bad %d-byte %v value: %v", w, op, key, n, proto, err)
			continue
		}
		id := [2]uint32{uint32(k), s.writer}
		if prev := seen[id]; s.seq < prev {
			t.Errorf("worker %d op %d: Get(%s) went back in time: writer %d seq %d after seq %d was read", w, op, key, s.writer, s.seq, prev)
		}
		seen[id] = max(seen[id], s.seq)
		if s.writer == uint32(w) && s.seq < st.lastWrite[w][k] {
			t.Errorf("worker %d op %d: Get(%s) returned its own seq %d after it wrote seq %d (lost write)", w, op, key, s.seq, st.lastWrite[w][k])
		}
	}
}

// verify checks, once every worker is done, that each key holds the final
// write of one of the workers.
func (st *stress) verify(t *testing.T, c *rdmakv.Client) {
	for k, key := range st.keys {
		v, err := c.Get(opCtx(t), key)
		if errors.Is(err, rdmakv.ErrNotFound) {
			if st.written[k].Load() {
				t.Errorf("final Get(%s) = NotFound, but it was written", key)
			}
			continue
		}
		if err != nil {
			t.Fatalf("final Get(%s): %v", key, err)
		}
		s, err := checkSelfChecking(key, uint32(k), v.Bytes())
		v.Release()
		if err != nil {
			t.Errorf("final Get(%s): %v", key, err)
			continue
		}
		if int(s.writer) >= len(st.lastWrite) || st.lastWrite[s.writer][k] != s.seq {
			t.Errorf("final Get(%s) holds writer %d seq %d, which is not that writer's last write to it (lost write)", key, s.writer, s.seq)
		}
	}
}

// testConcurrency runs env.Clients clients, one worker each.
func testConcurrency(t *testing.T, env Env) {
	s := startServer(t, serverConfig(env))
	clients := dialN(t, env, s.Addr(), env.Clients)
	st := newStress(env.Clients, "conc")
	st.run(t, env.Clients, 48, func(w int) *rdmakv.Client { return clients[w] })
	if !t.Failed() {
		st.verify(t, clients[0])
	}
}

// testSharedClients multiplexes many workers over few clients with a small
// depth, against a server with few receive buffers: callers wait for
// request slots, replies must reach the right caller, and the server's
// shared receive queue runs dry and recovers (backpressure, not loss).
func testSharedClients(t *testing.T, env Env) {
	cfg := serverConfig(env)
	cfg.RecvDepth = 8
	s := startServer(t, cfg)
	const nClients, perClient = 3, 8
	clients := dialN(t, env, s.Addr(), nClients, rdmakv.WithDepth(3))
	st := newStress(nClients*perClient, "shared")
	st.run(t, nClients*perClient, 24, func(w int) *rdmakv.Client { return clients[w%nClients] })
	if !t.Failed() {
		st.verify(t, clients[1])
	}
}
