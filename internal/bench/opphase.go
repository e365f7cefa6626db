package bench

import (
	"context"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/kvbench/kvbench/internal/results"
)

// OpPhase is a part of an operation's latency. Every operation that
// records phases has client, network and server; a rendezvous GET adds
// read and release, a rendezvous SET write and commit, and an open loop
// adds queue. They add up to the operation's latency.
type OpPhase uint8

// Phases, in the order an operation passes them.
const (
	// PhaseQueue (open loop) is from the intended start to the issue:
	// backlog, and the harness's own lateness.
	PhaseQueue OpPhase = iota
	// PhaseClient is the rest of the latency outside the target's phases:
	// the client library on either side of the wire, and the harness's
	// clock reads around the call.
	PhaseClient
	// PhaseNetwork is the request's round trip (to the reply, or to the
	// grant of a rendezvous) less the server's part: both NICs or stacks,
	// the wire, and the client's completion handling.
	PhaseNetwork
	// PhaseServer is the server's time from the request's arrival to its
	// reply (or grant): lookup, copy, window bind.
	PhaseServer
	// PhaseRead (rendezvous GET) is the one-sided READ of the value.
	PhaseRead
	// PhaseRelease (rendezvous GET) is posting the window's release.
	PhaseRelease
	// PhaseWrite (rendezvous SET) is from the grant to SET_REPLY less the
	// server's commit: the WRITE and its round trip.
	PhaseWrite
	// PhaseCommit (rendezvous SET) is the server storing the commit.
	PhaseCommit
	NumOpPhases
)

// String is the phase's name in results.json (results.PhaseNames).
func (p OpPhase) String() string {
	if p < NumOpPhases {
		return results.PhaseNames[p]
	}
	return "phase?"
}

// OpPhases is one operation's phases in nanoseconds as the target timed
// them; Has marks the ones it timed.
type OpPhases struct {
	Ns  [NumOpPhases]int64
	Has uint16
}

// Set records phase p as ns (negative is taken as 0: clocks of two hosts
// or a synchronous post can make a difference slightly negative).
func (o *OpPhases) Set(p OpPhase, ns int64) {
	o.Ns[p] = max(ns, 0)
	o.Has |= 1 << p
}

// Timed says whether the target timed the operation.
func (o *OpPhases) Timed() bool { return o.Has != 0 }

type opPhasesKey struct{}

// OpPhasesFrom returns where a Target records the phases of the operation
// ctx was issued with, or nil when the run does not record phases
// (workload op_phases). A Target that can time its operations fills it
// before returning.
func OpPhasesFrom(ctx context.Context) *OpPhases {
	p, _ := ctx.Value(opPhasesKey{}).(*OpPhases)
	return p
}

// withOpPhases gives a worker's operations somewhere to record phases.
func withOpPhases(ctx context.Context, p *OpPhases) context.Context {
	return context.WithValue(ctx, opPhasesKey{}, p)
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
