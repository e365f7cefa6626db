package bench

import (
	"context"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/internal/store"
)

// OpPhase is a part of an operation's latency (store.OpPhase).
type OpPhase = store.OpPhase

// Phases, in the order an operation passes them (store.PhaseQueue...).
const (
	PhaseQueue   = store.PhaseQueue
	PhaseClient  = store.PhaseClient
	PhaseNetwork = store.PhaseNetwork
	PhaseServer  = store.PhaseServer
	PhaseRead    = store.PhaseRead
	PhaseRelease = store.PhaseRelease
	PhaseWrite   = store.PhaseWrite
	PhaseCommit  = store.PhaseCommit
	NumOpPhases  = store.NumOpPhases
)

// OpPhases is one operation's phases in nanoseconds as the target timed
// them (store.OpPhases).
type OpPhases = store.OpPhases

// OpPhasesFrom returns where a Target records the phases of the operation
// ctx was issued with, or nil when the run does not record phases
// (store.OpPhasesFrom).
func OpPhasesFrom(ctx context.Context) *OpPhases { return store.OpPhasesFrom(ctx) }

// withOpPhases gives a worker's operations somewhere to record phases.
func withOpPhases(ctx context.Context, p *OpPhases) context.Context {
	return store.WithOpPhases(ctx, p)
}

// PhaseHists is one histogram per phase (nanoseconds); nil until used.
type PhaseHists [NumOpPhases]*hdrhistogram.Histogram

// record stores o's phases; client is what the latency has beyond them
// and the queue.
func (h *PhaseHists) record(o *OpPhases, latNs, queueNs int64, open bool) {
	if open {
		o.Set(PhaseQueue, queueNs)
	}
	rest := latNs
	for p := range NumOpPhases {
		if p != PhaseClient && o.Has&(1<<p) != 0 {
			rest -= o.Ns[p]
		}
	}
	o.Set(PhaseClient, rest)
	for p := range NumOpPhases {
		if o.Has&(1<<p) == 0 {
			continue
		}
		if h[p] == nil {
			h[p] = results.NewHistogram()
		}
		h[p].RecordValue(min(o.Ns[p], results.HighestNs))
	}
}

// merge adds src's histograms into h.
func (h *PhaseHists) merge(src *PhaseHists) {
	for p, s := range src {
		if s == nil {
			continue
		}
		if h[p] == nil {
			h[p] = results.NewHistogram()
		}
		h[p].Merge(s)
	}
}

// cellPhases is results.json's form of a cell's phases (nil without any).
func (h *PhaseHists) cellPhases() (map[string]results.OpPhase, error) {
	var out map[string]results.OpPhase
	for p, s := range h {
		if s == nil {
			continue
		}
		enc, err := results.EncodeHistogram(s)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]results.OpPhase{}
		}
		out[OpPhase(p).String()] = results.OpPhase{Count: s.TotalCount(), P50: s.ValueAtQuantile(50),
			P90: s.ValueAtQuantile(90), P99: s.ValueAtQuantile(99), Max: s.Max(), Histogram: enc}
	}
	return out, nil
}
