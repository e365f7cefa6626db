package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/kvbench/kvbench/internal/valuegen"
	"github.com/kvbench/kvbench/rdmakv"
)

// A ledger writer owns its keys outright and remembers, per key, the last
// acknowledged outcome and every outcome a failed operation may have left
// since. A read must find one of those; at the end every key is read back.

// keyState is what one key may hold. Version 0 stands for "absent".
type keyState struct {
	acked uint64   // the last acknowledged set's version, or 0 after a delete
	maybe []uint64 // outcomes of operations that failed after acked
}

// accepts says whether reading version v (0: not found) fits the history.
func (k *keyState) accepts(v uint64) bool {
	return v == k.acked || slices.Contains(k.maybe, v)
}

func (k *keyState) ack(v uint64)  { k.acked, k.maybe = v, k.maybe[:0] }
func (k *keyState) fail(v uint64) { k.maybe = append(k.maybe, v) }

// ledgerSizes are the writers' value sizes, eager and rendezvous at the
// default 4 KiB threshold; the size is a function of key and version, so a
// read knows the length it must have.
var ledgerSizes = []int{64, 700, 3000, 5000, 40_000, 200_000}

func sizeOf(key int, v uint64) int { return ledgerSizes[(uint64(key)+v)%uint64(len(ledgerSizes))] }

// findings counts what reads found wrong; ops counts operations by outcome.
type findings struct {
	Checked, Lost, Wrong, Torn int64
	Ops, Failed, Reconnects    int64
	Examples                   []string
}

func (f *findings) add(o findings) {
	f.Checked += o.Checked
	f.Lost += o.Lost
	f.Wrong += o.Wrong
	f.Torn += o.Torn
	f.Ops += o.Ops
	f.Failed += o.Failed
	f.Reconnects += o.Reconnects
	for _, e := range o.Examples {
		if len(f.Examples) < 10 {
			f.Examples = append(f.Examples, e)
		}
	}
}

// writer is one ledger connection and its keys.
type writer struct {
	id   int
	keys []keyState
	next uint64
	rng  *rand.Rand
	dial func(context.Context) (*rdmakv.Client, error)
	c    *rdmakv.Client
	buf  []byte
	f    findings
	// limit, if not 0, ends run after that many operations (tests).
	limit int64
}

const ledgerKeys = 48

func keyName(w, k int) []byte { return fmt.Appendf(nil, "ledger-%d-%03d", w, k) }

// check reads key k and compares with its history.
func (w *writer) check(ctx context.Context, k int) error {
	key := keyName(w.id, k)
	v, err := w.c.Get(ctx, key)
	var got uint64
	switch {
	case errors.Is(err, rdmakv.ErrNotFound):
	case err != nil:
		return err
	default:
		b := v.Bytes()
		r := valuegen.Check(b, key, -1)
		got = r.Version
		switch {
		case !r.OK && r.Kind == valuegen.KindTorn:
			w.f.Torn++
			w.note("key %s: torn value (versions %d and %d)", key, r.Version, r.Other)
		case !r.OK:
			w.f.Wrong++
			w.note("key %s: %s value at byte %d", key, r.Kind, r.Offset)
		case len(b) != sizeOf(k, got):
			w.f.Wrong++
			w.note("key %s: version %d is %d bytes, was written with %d", key, got, len(b), sizeOf(k, got))
		}
		v.Release()
		if !r.OK {
			return nil
		}
	}
	w.f.Checked++
	if st := &w.keys[k]; !st.accepts(got) {
		w.f.Lost++
		w.note("key %s: read version %d, want %d (or one of %v from failed operations)", key, got, st.acked, st.maybe)
	}
	return nil
}

func (w *writer) note(format string, a ...any) {
	if len(w.f.Examples) < 10 {
		w.f.Examples = append(w.f.Examples, fmt.Sprintf(format, a...))
	}
}

// step does one random operation: 45% set, 40% get, 15% delete.
func (w *writer) step(ctx context.Context) error {
	k := w.rng.IntN(len(w.keys))
	key := keyName(w.id, k)
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	var err error
	switch p := w.rng.IntN(100); {
	case p < 45:
		v := w.next
		w.next++
		val := w.buf[:sizeOf(k, v)]
		valuegen.Fill(val, key, v)
		err = w.c.Set(ctx, key, val)
		w.settle(k, v, err)
	case p < 85:
		err = w.check(ctx, k)
	default:
		err = w.c.Delete(ctx, key)
		if errors.Is(err, rdmakv.ErrNotFound) {
			err = nil
		}
		w.settle(k, 0, err)
	}
	w.f.Ops++
	return err
}

// settle records an operation's outcome for key k. A refusal changes
// nothing; any other failure may or may not have taken effect.
func (w *writer) settle(k int, v uint64, err error) {
	switch {
	case err == nil:
		w.keys[k].ack(v)
	case errors.Is(err, rdmakv.ErrNoSpace), errors.Is(err, rdmakv.ErrValueTooLarge):
	default:
		w.keys[k].fail(v)
	}
}

// opTimeout bounds each operation of the soak's own clients, and of
// kvbench's. It is a hang guard, not a deadline: a server stopped for a
// second on a host busy with other work is slow and still correct, and
// the soak looks for values lost, wrong or torn, not for speed. An
// operation still unanswered after it is a client the server no longer
// serves, which is a finding.
const opTimeout = 30 * time.Second

// dialTimeout bounds a connect, the same kind of hang guard. The kernel's
// connection manager resends a connection message that drew no answer
// only after its response timeout, about 4.3 s for rdma_cm's default, so
// it allows for several resends; the report shows the slowest connect, so
// a slow one is never hidden.
const dialTimeout = 30 * time.Second

// run steps until ctx ends, or after limit operations if limit is set,
// reconnecting when the connection fails. An error once ctx has ended is
// the run's own cancellation and counts as nothing.
func (w *writer) run(ctx context.Context) {
	for !ended(ctx) && (w.limit == 0 || w.f.Ops < w.limit) {
		if w.c == nil {
			c, err := w.dial(ctx)
			if err != nil {
				if !ended(ctx) {
					w.f.Failed++
					w.note("writer %d: dial: %v", w.id, err)
					time.Sleep(100 * time.Millisecond)
				}
				continue
			}
			w.c = c
		}
		if err := w.step(ctx); err != nil && !ended(ctx) {
			w.f.Failed++
			w.note("writer %d: %v", w.id, err)
			if errors.Is(err, rdmakv.ErrClosed) {
				w.c.Close()
				w.c = nil
				w.f.Reconnects++
			}
		}
	}
}

// final reads back every key once the load has stopped.
func (w *writer) final() error {
	ctx := context.Background()
	if w.c == nil {
		c, err := w.dial(ctx)
		if err != nil {
			return err
		}
		w.c = c
	}
	for k := range w.keys {
		cctx, cancel := context.WithTimeout(ctx, opTimeout)
		err := w.check(cctx, k)
		cancel()
		if err != nil {
			return fmt.Errorf("final read of %s: %w", keyName(w.id, k), err)
		}
	}
	return nil
}

// ledger runs the writers.
type ledger struct {
	writers []*writer
	wg      sync.WaitGroup
}

func newLedger(n int, seed uint64, dial func(context.Context) (*rdmakv.Client, error)) *ledger {
	l := &ledger{}
	for i := range n {
		l.writers = append(l.writers, &writer{
			id: i, keys: make([]keyState, ledgerKeys), next: 1,
			rng: rand.New(rand.NewPCG(seed, uint64(i))), dial: dial,
			buf: make([]byte, slices.Max(ledgerSizes)),
		})
	}
	return l
}

func (l *ledger) start(ctx context.Context) {
	for _, w := range l.writers {
		l.wg.Add(1)
		go func() { defer l.wg.Done(); w.run(ctx) }()
	}
}

// finish waits for the writers (their ctx must be done), reads every key
// back, closes the connections and sums the findings.
func (l *ledger) finish() (findings, error) {
	l.wg.Wait()
	var f findings
	var errs []error
	for _, w := range l.writers {
		errs = append(errs, w.final())
		if w.c != nil {
			w.c.Close()
		}
		f.add(w.f)
	}
	return f, errors.Join(errs...)
}

// keys lists every key the writers own, for the final cleanup.
func (l *ledger) keys() [][]byte {
	var out [][]byte
	for _, w := range l.writers {
		for k := range w.keys {
			out = append(out, keyName(w.id, k))
		}
	}
	return out
}
