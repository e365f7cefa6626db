// Package tune recommends an eager threshold. For each value size and op it
// measures forced eager (threshold above the size) against forced
// rendezvous (threshold 0), repeated and interleaved so that drift cancels,
// and finds the size from which rendezvous beats eager by more than the
// run-to-run noise.
package tune

import (
	"context"
	"errors"

	"github.com/kvbench/kvbench/internal/bench"
	"github.com/kvbench/kvbench/internal/results"
)

// Protocol is the protocol a measurement forces (rdmakv's, through the
// harness).
type Protocol = bench.Protocol

// Protocols.
const (
	Eager      = bench.Eager
	Rendezvous = bench.Rendezvous
)

// Sample is one repetition's result for one (op, size, protocol).
type Sample struct {
	// P50 is the median latency in nanoseconds.
	P50 float64 `json:"p50_ns"`
	// OpsPerSec and BytesPerSec are the throughput (bytes count values).
	OpsPerSec   float64 `json:"ops_per_sec"`
	BytesPerSec float64 `json:"bytes_per_sec"`
	// Phases are the p50 of each phase of the operations in nanoseconds,
	// by name (results.PhaseNames), when they were recorded.
	Phases map[string]float64 `json:"phases_p50_ns,omitempty"`
	// Warnings say why this repetition may not be trusted
	// (bench.Measurement.Warnings); absent when nothing looked wrong.
	Warnings []results.Warning `json:"warnings,omitempty"`
}

// ErrUnsupported is returned (wrapped) by a Measurer when the protocol
// cannot carry the size at all, e.g. eager above the server's largest
// eager message. Tuning then treats rendezvous as the only choice there.
var ErrUnsupported = errors.New("protocol cannot carry this size")

// Measurer measures one repetition of op ("get", "set", "delete") with
// values of size bytes under protocol p.
type Measurer interface {
	Measure(ctx context.Context, op string, size int, p Protocol) (Sample, error)
}

// MeasurerFunc adapts a function to Measurer.
type MeasurerFunc func(ctx context.Context, op string, size int, p Protocol) (Sample, error)

// Measure implements Measurer.
func (f MeasurerFunc) Measure(ctx context.Context, op string, size int, p Protocol) (Sample, error) {
	return f(ctx, op, size, p)
}
