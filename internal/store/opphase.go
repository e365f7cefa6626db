package store

import (
	"context"

	"github.com/kvbench/kvbench/internal/results"
)

// OpPhase is a part of an operation's latency. Every operation that
// records phases has client, network and server; a rendezvous GET adds
// read and release, a rendezvous SET write and commit, and an open loop
// adds queue. They add up to the operation's latency. A Target that can
// time its requests fills in the ones it timed (OpPhasesFrom); the
// engine the rest.
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

// WithOpPhases gives the operations issued with the context returned
// somewhere to record their phases: the engine's, one per worker.
func WithOpPhases(ctx context.Context, p *OpPhases) context.Context {
	return context.WithValue(ctx, opPhasesKey{}, p)
}
