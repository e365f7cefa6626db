// Package results holds the on-disk format of a kvbench run: results.json,
// one HdrHistogram interval log per cell, and summary.txt. Writers and
// readers (report, plot, compare, tune) share these types so the format has
// one definition.
package results

import (
	"fmt"
	"strings"
	"time"

	"github.com/kvbench/kvbench/rdmakv/transport"
)

// SchemaVersion is bumped on any incompatible change to Run.
const SchemaVersion = 1

// File names inside a run directory.
const (
	ResultsFile = "results.json"
	SummaryFile = "summary.txt"
	// HlogDir holds one interval log per cell, named by Cell.Hlog.
	HlogDir = "hlog"
)

// Run is results.json.
type Run struct {
	SchemaVersion int `json:"schema_version"`
	// Workload is the effective workload after flag overrides, as a generic
	// document so this package does not depend on the workload package.
	Workload any    `json:"workload"`
	Seed     uint64 `json:"seed"`
	Version  string `json:"kvbench_version"`
	Revision string `json:"git_revision"`
	// Protocol is the rdmakv protocol version the client spoke (0 in
	// runs recorded before it was kept).
	Protocol  int       `json:"protocol_version,omitempty"`
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	EndReason string    `json:"end_reason"` // EndCompleted, EndInterrupted, EndError(...) or EndPartial
	Host      Host      `json:"host"`
	// Harness is what the harness itself cost per operation on the host,
	// measured as the run began; absent when not measured (older runs,
	// tests that skip it).
	Harness *HarnessCost `json:"harness,omitempty"`
	// Target is the kind of store measured and its server's version;
	// absent in runs recorded before it was kept, which measured rdmakv.
	Target    *Target   `json:"target,omitempty"`
	Transport Transport `json:"transport"`
	// Verify sums the verify counters over all cells.
	Verify VerifyCounts `json:"verify"`
	Cells  []Cell       `json:"cells"`
	// Rank places a run made by one of several load generators (kvbench
	// run --rank, or a launcher's environment); absent for a run alone.
	Rank *Rank `json:"rank,omitempty"`
	// Ranks, in a run merged from several (kvbench merge), are each
	// rank's own figures, so a slow client host stands out.
	Ranks []RankSummary `json:"ranks,omitempty"`
}

// KindRdmakv is the kind of a run without a target: the store kvbench
// was built for. Other kinds are the baselines' (internal/store).
const KindRdmakv = "rdmakv"

// The Policy of a cell whose clients did not apply its Threshold alone:
// PolicyProfile, a threshold profile (Target.Profile), Threshold then the
// larger of its two; PolicyAdaptive, the adaptive policy
// (rdmakv.WithAdaptiveThreshold), each request's protocol its size
// class's choice at the time, Threshold then AdaptiveThreshold.
const (
	PolicyProfile  = "profile"
	PolicyAdaptive = "adaptive"
)

// AdaptiveThreshold is the Threshold of the adaptive policy's cells.
const AdaptiveThreshold = -1

// Target is the store a run measured.
type Target struct {
	// Kind is rdmakv or a baseline's (store.Kinds).
	Kind string `json:"kind"`
	// ServerVersion is the version the server reported (Redis's
	// redis_version, memcached's VERSION); empty for rdmakv, whose
	// protocol version is Run.Protocol.
	ServerVersion string `json:"server_version,omitempty"`
	// Profile, for a run whose clients applied a threshold profile, says
	// which and what it gave at the run's load ("profile.json: get 16KiB,
	// set 4KiB at 16 in flight"); its cells' Policy is PolicyProfile.
	Profile string `json:"profile,omitempty"`
}

// TargetKind is the kind of store the run measured: rdmakv for a run
// recorded before the kind was kept.
func (r *Run) TargetKind() string {
	if r.Target == nil || r.Target.Kind == "" {
		return KindRdmakv
	}
	return r.Target.Kind
}

// Rank is one load generator's place in a run of several.
type Rank struct {
	Rank  int `json:"rank"`
	Ranks int `json:"ranks"`
	// From says where the rank came from: "--rank" or the launcher's
	// variable (OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, ...).
	From string `json:"from,omitempty"`
}

// RankSummary is one rank's part of a merged run.
type RankSummary struct {
	Rank  int        `json:"rank"`
	Host  string     `json:"host"`
	Start time.Time  `json:"start"`
	End   time.Time  `json:"end"`
	Cells []RankCell `json:"cells"`
}

// RankCell is one rank's figures for one cell of a merged run.
type RankCell struct {
	Name          string  `json:"cell"`
	Count         int64   `json:"count"`
	Errors        int64   `json:"errors"` // the rank's Cell.Failures
	ThroughputOps float64 `json:"throughput_ops"`
	P50           int64   `json:"p50_ns"`
	P99           int64   `json:"p99_ns"`
	// Histogram is the rank's own HdrHistogram of the cell.
	Histogram string `json:"histogram"`
}

// Host describes the machine the client ran on.
type Host struct {
	Hostname string `json:"hostname"`
	Kernel   string `json:"kernel"`
	CPUModel string `json:"cpu_model"`
	Cores    int    `json:"cores"`
	MemBytes uint64 `json:"mem_bytes"`
	GoVer    string `json:"go_version"`
}

// Transport names the transport and, on verbs, the RDMA device.
type Transport struct {
	Name     string `json:"name"` // "tcp" or "verbs"
	Server   string `json:"server"`
	Embedded bool   `json:"embedded_server"`
	// Link is the client's RDMA device and port (verbs; empty on tcp).
	transport.Link
	// ClientPoll is how the client waited for completions: "busy" or
	// "event" (tcp always waits on its socket: event).
	ClientPoll string `json:"client_poll,omitempty"`
	// ClientSockets is how the client's TCP sockets wait (tcp and the
	// baselines): SocketsBlocking, in the kernel on a thread per
	// connection, when a process has fewer connections than Ps; else
	// SocketsPoller, under Go's poller.
	ClientSockets string `json:"client_sockets,omitempty"`
	// ServerPoll is the server's polling mode where kvbench knows it (its
	// embedded server); empty for an external server.
	ServerPoll string `json:"server_poll,omitempty"`
	// Limits are the server's limits as its handshake announced them;
	// absent when no connection was made.
	Limits *ServerLimits `json:"server_limits,omitempty"`
}

// The ways a client's TCP sockets wait (Transport.ClientSockets).
const (
	SocketsBlocking = "blocking"
	SocketsPoller   = "poller"
)

// ServerLimits are what the server accepts; they bound the thresholds and
// value sizes a run can sweep.
type ServerLimits struct {
	// MaxEager bounds eager messages: key plus value must be below it.
	MaxEager int `json:"max_eager"`
	// MaxKey is the longest key in bytes.
	MaxKey int `json:"max_key"`
	// MaxValue is the largest value in bytes.
	MaxValue int64 `json:"max_value"`
	// PoolSize is the server's value pool in bytes.
	PoolSize int64 `json:"pool_size"`
	// LeaseNs is how long a rendezvous window stays open.
	LeaseNs int64 `json:"lease_ns,omitempty"`
	// MaxInflight is the most requests a client may have in flight.
	MaxInflight int `json:"max_inflight,omitempty"`
}

// Cell is one (op, value size, threshold, protocol) combination. Its
// optional figures (IssueDelay, Phases, CPU, HWCounters, CreditWaits,
// ReceiveMemory, SizeClasses, Sizes, Adaptive) are each declared in package figure, which says how merge, compare, report
// and plot treat it: a new one is its field here, the harness's code that
// measures it, and its declaration there.
type Cell struct {
	Op string `json:"op"` // "get", "set", "delete"
	// ValueSize is the cell's value size in bytes; for a cell whose
	// values' sizes were drawn from a distribution, it is that
	// distribution's mean, rounded, which places the cell on a figure by
	// value size.
	ValueSize int `json:"value_size"`
	// Distribution, for a workload with values.distribution, is the law
	// each value's size was drawn from, as the workload gives it on one
	// line ("weighted: {64B: 70, 4KiB: 30}, max: 1MiB"): the cell's
	// values are of many sizes and its protocol was each operation's
	// own, so eager and rendezvous cells of one threshold split the
	// operations between them by size. Absent for a fixed value size and
	// in files recorded before distributions.
	Distribution string `json:"distribution,omitempty"`
	Threshold    int    `json:"threshold"`
	// Policy says how the clients chose each request's protocol when not
	// by Threshold alone: PolicyProfile, a threshold per op from a
	// profile, Threshold then the larger, which the clients asked the
	// server for. Empty for a fixed threshold.
	Policy   string `json:"policy,omitempty"`
	Protocol string `json:"protocol"` // "eager" or "rendezvous"
	// Store is the kind of store the cell measured (Target.Kind: rdmakv,
	// redis, memcached), in each cell so that a cell read apart from its
	// run, or set beside another run's, still says what it measured.
	// Files recorded before it was kept get it when they load (Decode).
	Store string `json:"store"`
	// Phase is "measure" (warmup is never recorded).
	Count  int64            `json:"count"`
	Errors map[string]int64 `json:"errors"` // by kind: "timeout", "not_found", "verify_mismatch", ...; see Failures
	// DurationNs is the measured wall time of the cell's phase.
	DurationNs      int64   `json:"duration_ns"`
	ThroughputOps   float64 `json:"throughput_ops"`   // ops/s
	ThroughputBytes float64 `json:"throughput_bytes"` // value bytes/s
	Latency         Latency `json:"latency_ns"`
	// Histogram is the merged HdrHistogram in the standard compressed
	// base64 encoding (HISTFAAA...), nanoseconds.
	Histogram string `json:"histogram"`
	// Hlog is the interval log's path relative to the run directory.
	Hlog string `json:"hlog"`
	// Load records how the cell was driven.
	Load CellLoad `json:"load"`
	// Warnings say why the cell's figures may not be trusted (CellWarnings,
	// SiblingWarnings); absent when nothing looked wrong.
	Warnings []Warning `json:"warnings,omitempty"`
	// Checks are the tests of whether the cell's figures can be trusted
	// (Check); a failed one is among Warnings too. Absent in files
	// recorded before they were made.
	Checks []Check `json:"checks,omitempty"`
	// WarmupEnd and MeasureEnd say what ended the cell's warmup and
	// measure phases (PhaseEnd). Absent in files recorded before they
	// were kept; WarmupEnd also when the cell had no warmup.
	WarmupEnd  *PhaseEnd `json:"warmup_end,omitempty"`
	MeasureEnd *PhaseEnd `json:"measure_end,omitempty"`
	// IntervalNs is the length of the interval log's intervals (the last
	// one is cut short by the end of the phase).
	IntervalNs int64 `json:"interval_ns,omitempty"`
	// IssueDelay (open loop, or a replay at a speed, only) summarises, over the cell's operations
	// the harness was free to issue on schedule, how late it issued them:
	// its own timer and scheduling slop. Latency counts from the intended
	// start, so this is already inside Latency; where its percentiles
	// approach Latency's, the harness rather than the target is measured.
	IssueDelay *Latency `json:"issue_delay_ns,omitempty"`
	// Phases (a run with op_phases) split the cell's latency into its
	// parts, by name (PhaseNames); each operation's phases add up to its
	// latency. Absent when the run did not record phases.
	Phases map[string]OpPhase `json:"phases,omitempty"`
	// CPU is the CPU time of the cell's measure phase, client and server,
	// in total and per operation of the phase (see CellCPU). Absent when
	// the run did not measure it: older results, or a platform without
	// getrusage.
	CPU *CellCPU `json:"cpu,omitempty"`
	// HWCounters (verbs) are what each hardware counter of the client's
	// RDMA device grew by over the cell's measure phase, by the name
	// Linux gives it (hw_counters in sysfs: rxe's send_rnr_err,
	// mlx5's out_of_buffer, ...), every counter the device has, zeros
	// included. Like CPU they are the phase's, shared by its cells, and
	// the whole device's: every connection on it counts, an embedded
	// server's too. Absent when nothing was read: tcp, a host without
	// the device or its sysfs, older results.
	HWCounters map[string]uint64 `json:"hw_counters,omitempty"`
	// CreditWaits (rdmakv) is how many of the clients' messages waited
	// for the server's credit over the cell's measure phase: the server
	// held fewer receives for them than they had requests to send
	// (docs/PROTOCOL.md, "Credits"), and the waits are in the latencies.
	// The phase's, shared by its cells. Absent for other stores and older
	// results.
	CreditWaits *uint64 `json:"credit_waits,omitempty"`
	// ReceiveMemory (rdmakv) is what verbs registers for receives at the
	// cell's threshold and load (ReceiveMemory). Absent for other stores,
	// a build without verbs (no cgo) and older results.
	ReceiveMemory *ReceiveMemory `json:"receive_memory,omitempty"`
	// SizeClasses (a cell with a Distribution) split the cell's
	// operations by the power-of-two class of their value's size, with
	// each class's count, bytes and latency, ascending by class. Absent
	// for a fixed value size.
	SizeClasses []SizeClass `json:"size_classes,omitempty"`
	// Sizes (a cell with a Distribution) are the sizes the cell's op
	// moved at its threshold, both protocols' (SizeMix), and how the
	// protocols shared them; the same in the op's eager and rendezvous
	// cells of the threshold.
	Sizes *SizeMix `json:"sizes,omitempty"`
	// Adaptive (a cell of Policy adaptive) is what the clients' policy
	// chose for the cell's op over its measure phase, interval by
	// interval; the same in the op's eager and rendezvous cells. Absent
	// for a fixed threshold, a store without the policy and older results.
	Adaptive *AdaptiveTimeline `json:"adaptive,omitempty"`
	// Trace, for a workload that replays a trace, is what the cell
	// replayed; Distribution then names it on one line. Absent otherwise.
	Trace *CellTrace `json:"trace,omitempty"`
}

// CellTrace is the trace a cell replayed.
type CellTrace struct {
	File   string `json:"file"`   // as the workload names it
	Format string `json:"format"` // twitter or kvbench
	// Window is the stretch of the trace replayed: "all", "requests 100
	// to 1099", "0s to 20s".
	Window string `json:"window"`
	// Speed divided the recorded times: "1", "10", or "max" (as fast as
	// the load allowed).
	Speed string `json:"speed"`
	Loop  bool   `json:"loop,omitempty"`
	// RecordedMisses (get cells) are the gets the trace recorded as
	// misses (Twitter: value size 0), to set beside the store's misses
	// (Errors' not_found).
	RecordedMisses int64 `json:"recorded_misses"`
}

// PhaseNames are the names of an operation's phases in the order it
// passes them: queue (open loop: intended start to issue), client (the
// harness and client library), network (the request's round trip less
// the server's part), server (arrival to reply or grant), read and
// release (rendezvous GET), write and commit (rendezvous SET).
var PhaseNames = []string{"queue", "client", "network", "server", "read", "release", "write", "commit"}

// OpPhase summarises one phase of a cell's operations, in nanoseconds.
type OpPhase struct {
	Count int64 `json:"count"`
	P50   int64 `json:"p50"`
	P90   int64 `json:"p90"`
	P99   int64 `json:"p99"`
	Max   int64 `json:"max"`
	// Histogram is the phase's HdrHistogram (compressed base64).
	Histogram string `json:"histogram"`
}

// Latency is summary statistics in nanoseconds.
type Latency struct {
	Min   int64   `json:"min"`
	Mean  float64 `json:"mean"`
	Stdev float64 `json:"stdev"`
	P50   int64   `json:"p50"`
	P90   int64   `json:"p90"`
	P99   int64   `json:"p99"`
	P999  int64   `json:"p999"`
	P9999 int64   `json:"p9999"`
	Max   int64   `json:"max"`
}

// CellLoad is the load model a cell ran under.
type CellLoad struct {
	Mode        string  `json:"mode"` // "closed" or "open"
	Connections int     `json:"connections"`
	Depth       int     `json:"depth,omitempty"`
	RateOps     float64 `json:"rate_ops,omitempty"` // open loop target
	// RampRatesOps are the open-loop rates of a ramp, each held for
	// RampStepNs, in order; a ramped cell has no single RateOps.
	RampRatesOps []float64 `json:"ramp_rates_ops,omitempty"`
	RampStepNs   int64     `json:"ramp_step_ns,omitempty"`
	// Pacing is how the open loop, or a replay at a speed, waited for
	// intended starts: "precise" (a spinning dispatcher; issue delays of
	// microseconds) or "coarse" (runtime timers; up to about 1 ms late on
	// Linux).
	Pacing string `json:"pacing,omitempty"`
}

// Warning is one reason to doubt a cell: Kind is one of the Warn*
// constants, Message the evidence with its numbers.
type Warning struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// VerifyCounts are the verify mode's findings.
type VerifyCounts struct {
	Checked    int64 `json:"checked"`
	Mismatches int64 `json:"mismatches"`
	Missing    int64 `json:"missing"`
	Torn       int64 `json:"torn"`
}

// Build names the program that measured run, for the captions of figures
// drawn from it: "kvbench devel 1a2b3c4, protocol 5".
func (r *Run) Build() string {
	s := strings.TrimSpace("kvbench " + r.Version + " " + r.Revision)
	if r.Protocol > 0 {
		s += fmt.Sprintf(", protocol %d", r.Protocol)
	}
	return s
}
