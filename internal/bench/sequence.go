package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/kvbench/kvbench/internal/workload"
)

// Sequence is the operations a run issues in the measure phase of its
// first cell (the smallest threshold and value size), made without a
// target: the same workers draw them from the same random streams, so
// they are the run's for the seed. They come in the order of the open-loop
// schedule's slots, slot g being worker g mod W's and carrying its
// intended start: the order a run at that rate issues them in when it
// keeps up. Before the measure phase the workers go through what a run
// does first, unrecorded, where it changes what they draw: the warmup
// (the numbering of drawn value sizes counts its sets) and, in verify
// mode, the preload (which takes each key's first version).
//
// A closed loop issues each operation when the last completes, so its
// operations have no intended times: NewSequence wants an open loop. Its
// workers draw what a closed loop's do (the streams do not depend on the
// mode), in the same round-robin order, so a closed loop recorded at any
// rate (--rate) is its operations timed as that rate would.
type Sequence struct {
	r       *runner
	ws      []*worker
	pacer   Pacer
	total   int64 // -1: no operation limit
	limitNs int64 // 0: no time limit
	g       int64 // the next slot
	size    int   // the cell's value size
	// written holds the size of each key's value written since the
	// preload (0 once deleted): what a get finds in this order.
	written map[int64]int
}

// SeqOp is one operation of a Sequence. Key is valid until the next call
// to Next.
type SeqOp struct {
	// Time is the intended start, from the measure phase's.
	Time      time.Duration
	Op        Op
	Key       []byte
	KeyIndex  int64
	ValueSize int
}

// NewSequence readies the measure phase of cfg's first cell. cfg needs no
// Dialer or Codec (a sequence dials nothing and fills no value) and must
// be an open loop of one rank.
func NewSequence(cfg Config) (*Sequence, error) {
	if cfg.Load.Mode != "open" {
		return nil, fmt.Errorf("load.mode %s: a sequence needs the intended times of an open loop", cfg.Load.Mode)
	}
	if cfg.ranks() > 1 {
		return nil, errors.New("a sequence is one rank's")
	}
	cfg.Dialer = DialerFunc(func(context.Context, int) (Conn, error) { return nil, errors.New("a sequence dials nothing") })
	cfg.Codec = nopCodec{}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg}
	r.newShards()
	s := &Sequence{r: r, size: cfg.ValueSizes[0], written: map[int64]int{}}
	ws, err := r.workers(make([]Conn, cfg.Load.Connections), s.size)
	if err != nil {
		return nil, err
	}
	s.ws = ws
	if cfg.Verify && cfg.Preload {
		for _, w := range ws {
			w.shard.next += uint64(len(w.shard.ver)) // a version for each key the worker owns
		}
	}
	if ph := cfg.Warmup; ph.Duration > 0 || ph.Ops > 0 {
		if err := s.phase(0, ph); err != nil {
			return nil, err
		}
		for _, ok := s.Next(); ok; _, ok = s.Next() {
		}
	}
	return s, s.phase(1, cfg.Measure)
}

// phase readies the workers for a phase as a run does.
func (s *Sequence) phase(id int, ph workload.Phase) error {
	if err := s.r.resetWorkers(s.ws, id, nil); err != nil {
		return err
	}
	for _, w := range s.ws {
		w.keys = &drawnKey{KeyGen: w.keys}
	}
	pacer, _, err := s.r.pacer(id == 1)
	s.pacer, s.g = pacer, 0
	s.total, s.limitNs = -1, int64(ph.Duration)
	if ph.Ops > 0 {
		s.total = ph.Ops
	}
	return err
}

// Next returns the next operation, or false after the last.
func (s *Sequence) Next() (SeqOp, bool) {
	if s.total >= 0 && s.g >= s.total {
		return SeqOp{}, false
	}
	off, ok := s.pacer.Offset(s.g)
	if !ok || (s.limitNs > 0 && int64(off) >= s.limitNs) {
		return SeqOp{}, false
	}
	w := s.ws[s.g%int64(len(s.ws))]
	s.g++
	op, _ := w.next()
	idx := w.keys.(*drawnKey).idx
	if w.shard != nil {
		idx = ownKey(idx, w.keyCount, w.id, w.workers)
	}
	o := SeqOp{Time: off, Op: op, Key: w.key, KeyIndex: idx}
	switch op {
	case OpSet:
		o.ValueSize = len(w.val)
		s.written[idx] = o.ValueSize
	case OpDelete:
		s.written[idx] = 0
	default:
		o.ValueSize = s.found(w, idx)
	}
	return o, true
}

// found is the size of the value key idx holds: the last written in this
// order, else the preload's, else none.
func (s *Sequence) found(w *worker, idx int64) int {
	if n, ok := s.written[idx]; ok {
		return n
	}
	switch {
	case !s.r.cfg.Preload:
		return 0
	case w.sizes != nil:
		return w.sizes.size(idx, 0)
	}
	return s.size
}

// drawnKey keeps the key index its generator drew last.
type drawnKey struct {
	KeyGen
	idx int64
}

func (d *drawnKey) Next(r *rand.Rand) int64 {
	d.idx = d.KeyGen.Next(r)
	return d.idx
}

// nopCodec fills and checks nothing: a sequence's values are never sent.
type nopCodec struct{}

func (nopCodec) Fill(dst, key []byte, version uint64) {}

func (nopCodec) Check(got, key []byte, wantLen int) (uint64, ErrorKind) { return 0, KindNone }
