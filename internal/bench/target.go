// Package bench drives a key-value target with a workload and measures it:
// closed-loop (each worker issues when its last operation completes) and
// open-loop (operations follow a schedule; latency counts from each one's
// intended start, correcting coordinated omission as wrk2 does). Every
// worker owns its histograms, merged after each phase, so the hot path takes
// no locks and does not allocate in steady state.
package bench

import (
	"context"
	"errors"

	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/rdmakv"
)

// Protocol is how an operation moved its value (rdmakv's).
type Protocol = rdmakv.Protocol

// Protocols. Unknown is an operation whose protocol the target could not
// tell (it failed before choosing one).
const (
	Unknown    Protocol = 0
	Eager               = rdmakv.Eager
	Rendezvous          = rdmakv.Rendezvous
	numProtos           = 3
)

// Op is an operation kind: rdmakv's, so a trace's op and a measurement's
// are one type.
type Op = rdmakv.Op

// Operations.
const (
	OpGet    = rdmakv.OpGet
	OpSet    = rdmakv.OpSet
	OpDelete = rdmakv.OpDelete
	// numOps sizes the per-op arrays, indexed by Op (rdmakv's ops start
	// at 1, so index 0 stays empty).
	numOps = OpDelete + 1
)

// Target is one connection to the store under test (store.Target).
type Target = store.Target

// TargetFunc adapts one function to Target; value is nil for get and
// delete, view is nil for set and delete.
type TargetFunc func(ctx context.Context, op Op, key, value []byte, view func([]byte)) (Protocol, error)

// Set implements Target.
func (f TargetFunc) Set(ctx context.Context, key, value []byte) (Protocol, error) {
	return f(ctx, OpSet, key, value, nil)
}

// Get implements Target.
func (f TargetFunc) Get(ctx context.Context, key []byte, view func([]byte)) (Protocol, error) {
	return f(ctx, OpGet, key, nil, view)
}

// Delete implements Target.
func (f TargetFunc) Delete(ctx context.Context, key []byte) (Protocol, error) {
	return f(ctx, OpDelete, key, nil, nil)
}

// Conn is a Target that owns a connection (store.Conn).
type Conn = store.Conn

// Dialer opens connections; the eager threshold is a connection option, so
// each threshold of a sweep gets a fresh set (store.Dialer).
type Dialer = store.Dialer

// DialerFunc adapts a function to Dialer.
type DialerFunc func(ctx context.Context, threshold int) (Conn, error)

// Dial implements Dialer.
func (f DialerFunc) Dial(ctx context.Context, threshold int) (Conn, error) { return f(ctx, threshold) }

// Errors a Target returns (possibly wrapped) so that the harness can count
// them by kind. Anything else counts as "other".
var (
	ErrTimeout  = store.ErrTimeout
	ErrNotFound = store.ErrNotFound
	ErrNoSpace  = store.ErrNoSpace
	ErrClosed   = store.ErrClosed
)

// ErrorKind classifies an operation's outcome.
type ErrorKind uint8

// Kinds; the names are the keys of results.Cell.Errors.
const (
	KindNone ErrorKind = iota
	KindTimeout
	KindNotFound
	KindNoSpace
	KindClosed
	KindVerifyMismatch
	KindTorn
	KindWrongKey
	KindOther
	NumKinds
)

var kindNames = [NumKinds]string{"none", "timeout", "not_found", "no_space", "closed", "verify_mismatch", "torn", "wrong_key", "other"}

func (k ErrorKind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return "other"
}

// Classify maps an error from a Target to its kind.
func Classify(err error) ErrorKind {
	switch {
	case err == nil:
		return KindNone
	case errors.Is(err, ErrNotFound):
		return KindNotFound
	case errors.Is(err, ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return KindTimeout
	case errors.Is(err, ErrNoSpace):
		return KindNoSpace
	case errors.Is(err, ErrClosed):
		return KindClosed
	}
	return KindOther
}
