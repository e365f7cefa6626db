package bench

import (
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/store"
)

// ReceiveMemory is the Config.ReceiveMemory of a run against this
// harness's store (store.ReceiveMemoryReporter); nil for a store that
// registers none.
func (s *Harness) ReceiveMemory() func(threshold, keySize, connections, depth int) (server, client int64, err error) {
	r, ok := s.Store.(store.ReceiveMemoryReporter)
	if !ok {
		return nil
	}
	return r.ReceiveMemory
}

// receiveMemory is what the store registers to receive at threshold: the
// server's for the connections of every rank, which it serves at once,
// and the clients' of this rank. Nil when the store registers none or
// cannot say (a build without verbs).
func (r *runner) receiveMemory(threshold int) *results.ReceiveMemory {
	f := r.cfg.ReceiveMemory
	if f == nil {
		return nil
	}
	l, key := r.cfg.Load, r.cfg.Keys.Size
	server, _, err := f(threshold, key, l.Connections*r.cfg.ranks(), l.Depth)
	if err != nil {
		return nil
	}
	_, client, err := f(threshold, key, l.Connections, l.Depth)
	if err != nil {
		return nil
	}
	return &results.ReceiveMemory{Server: server, Client: client}
}

// attachReceiveMemory gives every Measurement of a phase its threshold's
// receive memory.
func attachReceiveMemory(ms []Measurement, rm *results.ReceiveMemory) {
	for i := range ms {
		ms[i].ReceiveMemory = rm // shared as CreditWaits is; Cell copies it
	}
}
