// Package tune recommends an eager threshold. For each value size and op it
// measures forced eager (threshold above the size) against forced
// rendezvous (threshold 0), repeated and interleaved so that drift cancels,
// and finds the size from which rendezvous beats eager by more than the
// run-to-run noise. It compares by the objective the user names (p50, p99,
// throughput or CPU per operation) or by capacity under a latency goal,
// and repeats the comparison at every load asked for. On a distribution
// of sizes (Config.Workload) it measures the whole workload at candidate
// thresholds instead (under a latency goal, searching each one's
// capacity) and chooses one, optionally beside the sizes' crossovers as
// a prediction of it. Its Result is the
// decision as data: package report puts it in words (tune.txt,
// tune.json) and package plot draws it. It measures through a Measurer
// and imports no harness (package tunebench measures with the load
// generator), so that report and plot, which read a Result, stay readers
// of results.
package tune

import (
	"context"
	"errors"

	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/rdmakv"
)

// Protocol is the protocol a measurement forces: rdmakv's, which the
// harness reports as it is.
type Protocol = rdmakv.Protocol

// Protocols.
const (
	Eager      = rdmakv.Eager
	Rendezvous = rdmakv.Rendezvous
)

// Request is one measurement: op (get or set) on values of Size bytes
// with Protocol forced, under Load; or, when Whole is set, the whole
// workload (its mix of ops and its distribution of sizes) at eager
// threshold Threshold under Load, its ops merged into one Sample.
// Threshold AdaptiveThreshold measures under the adaptive policy instead
// of a fixed threshold: the whole workload, or one (op, Size) with no
// protocol forced (Protocol 0), its operations by both protocols merged.
type Request struct {
	Op        rdmakv.Op
	Size      int
	Protocol  Protocol
	Whole     bool
	Threshold int
	Load      Load
	// MinOps, when positive, is the fewest operations the measurement must
	// complete (an open loop's measure phase is made at least this long).
	MinOps int64
}

// Sample is one measurement's result.
type Sample struct {
	// P50 to P999 are latency percentiles in nanoseconds (coordinated-
	// omission corrected in an open loop).
	P50  float64 `json:"p50_ns"`
	P90  float64 `json:"p90_ns,omitempty"`
	P99  float64 `json:"p99_ns,omitempty"`
	P999 float64 `json:"p999_ns,omitempty"`
	// Count is the operations completed in the measure phase.
	Count int64 `json:"count,omitempty"`
	// OpsPerSec and BytesPerSec are the throughput (bytes count values).
	OpsPerSec   float64 `json:"ops_per_sec"`
	BytesPerSec float64 `json:"bytes_per_sec"`
	// ClientCPU and ServerCPU are CPU time per operation in nanoseconds
	// (user plus system). CPUScope is "client" when the two sides were
	// measured apart, "process" when the server ran inside the measuring
	// process: ClientCPU then holds the process's figure and ServerCPU is
	// 0. Empty when CPU was not measured.
	ClientCPU float64 `json:"client_cpu_ns_per_op,omitempty"`
	ServerCPU float64 `json:"server_cpu_ns_per_op,omitempty"`
	CPUScope  string  `json:"cpu_scope,omitempty"`
	// Phases are the p50 of each phase of the operations in nanoseconds,
	// by name (results.PhaseNames), when they were recorded.
	Phases map[string]float64 `json:"phases_p50_ns,omitempty"`
	// Warnings say why this repetition may not be trusted
	// (bench.Measurement.Warnings); absent when nothing looked wrong.
	Warnings []results.Warning `json:"warnings,omitempty"`
	// Checks are the tests of whether this repetition can be trusted, as
	// a run's cell carries them (results.Cell.Checks), its p50 against the
	// harness's own cost among them; a failed one is also among Warnings.
	// Absent when the measurer kept none.
	Checks []results.Check `json:"checks,omitempty"`
	// Capacity (a search under a latency goal) is the highest rate found
	// to meet the goal, in ops/s; Search holds the steps that found it.
	Capacity   float64 `json:"capacity_ops,omitempty"`
	Search     []Step  `json:"search,omitempty"`
	SearchNote string  `json:"search_note,omitempty"`
}

// ErrUnsupported is returned (wrapped) by a Measurer when the protocol
// cannot carry the size at all, e.g. eager above the server's largest
// eager message. Tuning then treats rendezvous as the only choice there.
// For a whole-workload request it means the target refuses the
// threshold: the candidate is listed as refused.
var ErrUnsupported = errors.New("protocol cannot carry this size")

// Measurer measures one request.
type Measurer interface {
	Measure(ctx context.Context, r Request) (Sample, error)
}

// MeasurerFunc adapts a function to Measurer.
type MeasurerFunc func(ctx context.Context, r Request) (Sample, error)

// Measure implements Measurer.
func (f MeasurerFunc) Measure(ctx context.Context, r Request) (Sample, error) { return f(ctx, r) }
