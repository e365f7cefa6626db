// Package workload is the kvbench workload file: its schema, a strict
// decoder that reports problems with file and line, defaults, and
// validation. The schema is documented for users in workloads/README.md.
package workload

import (
	"time"

	"github.com/kvbench/kvbench/internal/keygen"
	"github.com/kvbench/kvbench/internal/results"
	"github.com/kvbench/kvbench/rdmakv"
)

// Size is a byte count written in YAML as 4096, "4KiB", "1MiB", "64B".
type Size int64

// Duration is a time span written in YAML as "10s", "500ms", "2m".
type Duration time.Duration

// Workload is one workload file after defaults are applied.
type Workload struct {
	// Name identifies the workload in results directory names and reports.
	Name string `yaml:"name" json:"name"`
	// Description is free text for humans.
	Description string `yaml:"description" json:"description,omitempty"`
	// Seed derives all randomness: same seed, same operation sequence.
	Seed uint64 `yaml:"seed" json:"seed"`
	// Target says which server to drive.
	Target Target `yaml:"target" json:"target"`
	// Keys describes the key space and how keys are drawn.
	Keys Keys `yaml:"keys" json:"keys"`
	// Values lists the value sizes to sweep, or the distribution each
	// value's size is drawn from.
	Values Values `yaml:"values" json:"values"`
	// Trace, when set, replays a recorded trace's requests in place of
	// Values and Mix: one cell per threshold, each replaying its window.
	Trace *Trace `yaml:"trace" json:"trace,omitempty"`
	// Thresholds lists the eager thresholds to sweep; each value size (or
	// the distribution) with each threshold is one cell.
	Thresholds []Threshold `yaml:"thresholds" json:"thresholds"`
	// Adaptive sets the adaptive policy of the adaptive threshold; nil:
	// rdmakv's defaults.
	Adaptive *Adaptive `yaml:"adaptive" json:"adaptive,omitempty"`
	// Order is the order the cells run in: "interleaved" takes each value
	// size in turn and runs it at every threshold, each cell on connections
	// of its own, so that a host whose speed drifts over the run slows
	// every threshold alike; "thresholds" runs each threshold's sizes in a
	// row on one set of connections, a handshake per threshold rather than
	// per cell.
	Order string `yaml:"order" json:"order,omitempty"`
	// Mix gives the proportions of operations.
	Mix Mix `yaml:"mix" json:"mix"`
	// Preload fills the key space before measuring so that gets hit.
	Preload bool `yaml:"preload" json:"preload"`
	// Phases bound the warmup (not recorded) and measure phases of each cell.
	Phases Phases `yaml:"phases" json:"phases"`
	// Load is the load model: closed or open loop.
	Load Load `yaml:"load" json:"load"`
	// Verify checks every get against what the generator wrote.
	Verify bool `yaml:"verify" json:"verify"`
	// OpPhases records, per cell, a histogram of each phase of the
	// operations (client, network, server, and the rendezvous steps).
	OpPhases bool `yaml:"op_phases" json:"op_phases,omitempty"`
	// Timeout bounds each operation.
	Timeout Duration `yaml:"timeout" json:"timeout"`

	// src records where each field was set (file position or flag), for
	// defaults and positioned errors; nil for a Workload built in code.
	src *source
}

// Target is the server under test.
type Target struct {
	// Kind is the store: rdmakv (the default), or redis or memcached as a
	// baseline driven with the same workload (see Baseline).
	Kind string `yaml:"kind" json:"kind,omitempty"`
	// Server is host:port; empty starts an embedded server on loopback
	// (rdmakv only: a baseline needs its server's address).
	Server string `yaml:"server" json:"server"`
	// Transport is one of rdmakv.Transports(); a baseline speaks tcp, so
	// it accepts tcp or auto.
	Transport string `yaml:"transport" json:"transport"`
	// Poll is how the client waits for completions on verbs: "busy" spins
	// on the completion queue (perftest's way, the lowest latency, a core
	// per waiting worker) and "event" sleeps until the NIC signals. Empty
	// means busy on verbs; tcp has no completion queue and always waits on
	// its socket, so busy is refused there.
	Poll string `yaml:"poll" json:"poll,omitempty"`
	// AuthFile names a file holding the server's shared secret (kvserver
	// --auth-file), relative to the working directory. The clients prove
	// they know it when the server asks; an embedded server asks for it.
	AuthFile string `yaml:"auth_file" json:"auth_file,omitempty"`
	// TOS is the IP type-of-service byte of the clients' traffic (DSCP
	// << 2 | ECN, 0 to 255): the RoCE traffic class on verbs, IP_TOS on
	// tcp; an embedded server uses it too. 0, the default, is class 0.
	TOS int `yaml:"tos" json:"tos,omitempty"`
	// Profile names a threshold profile (rdmakv.Profile, what kvbench
	// tune writes), relative to the working directory: the clients apply
	// it, a threshold per op at the run's load, in place of the
	// workload's thresholds (rdmakv only).
	Profile string `yaml:"profile" json:"profile,omitempty"`

	profile *rdmakv.Profile // loaded by Validate
}

// Baseline says whether the target is a store other than rdmakv: one
// with no eager threshold, whose cells are one per (op, value size).
func (t Target) Baseline() bool { return t.Kind != "" && t.Kind != results.KindRdmakv }

// Keys is the key space.
type Keys struct {
	// Count is the number of distinct keys.
	Count int `yaml:"count" json:"count"`
	// Size is each key's length in bytes, or with SizeDistribution the
	// longest key's (SizeLaw's Max).
	Size int `yaml:"size" json:"size"`
	// SizeDistribution, when keys.size gives a distribution rather than a
	// size, is the law each key's size is drawn from (see SizeLaw).
	SizeDistribution *Distribution `yaml:"-" json:"size_distribution,omitempty"`
	// Distribution is one of keygen.Distributions.
	Distribution string `yaml:"distribution" json:"distribution"`
	// ZipfianConstant is the zipfian skew (theta), in (0, 1); YCSB uses 0.99.
	ZipfianConstant float64 `yaml:"zipfian_constant" json:"zipfian_constant,omitempty"`
	// HotFraction is the share of keys that are hot (hotspot).
	HotFraction float64 `yaml:"hot_fraction" json:"hot_fraction,omitempty"`
	// HotProbability is the share of operations that go to hot keys (hotspot).
	HotProbability float64 `yaml:"hot_probability" json:"hot_probability,omitempty"`
}

// Spec is what keygen.New needs of the key space.
func (k Keys) Spec() keygen.Spec {
	return keygen.Spec{Count: k.Count, Distribution: k.Distribution, ZipfianConstant: k.ZipfianConstant,
		HotFraction: k.HotFraction, HotProbability: k.HotProbability}
}

// Values lists value sizes: explicit sizes, a range, or both (merged,
// sorted, deduplicated); or instead a distribution each operation draws
// its value's size from.
type Values struct {
	Sizes []Size `yaml:"sizes" json:"sizes,omitempty"`
	Range *Range `yaml:"range" json:"range,omitempty"`
	// Distribution, when given, replaces Sizes and Range: one cell per
	// threshold, each value's size drawn from it.
	Distribution *Distribution `yaml:"distribution" json:"distribution,omitempty"`
}

// Range is a sweep from Min to Max inclusive. Step is either a size added
// each time ("4KiB") or a factor ("x2").
type Range struct {
	Min  Size   `yaml:"min" json:"min"`
	Max  Size   `yaml:"max" json:"max"`
	Step string `yaml:"step" json:"step"`
}

// Mix is the operation mix; the three must sum to 1.
type Mix struct {
	Get    float64 `yaml:"get" json:"get"`
	Set    float64 `yaml:"set" json:"set"`
	Delete float64 `yaml:"delete" json:"delete"`
}

// Phases bound each cell's run.
type Phases struct {
	Warmup  Phase `yaml:"warmup" json:"warmup"`
	Measure Phase `yaml:"measure" json:"measure"`
}

// Phase ends after Duration or after Ops operations, whichever is set
// (exactly one must be, except that a warmup may be empty). With Until it
// runs until that condition holds or a cap (MaxDuration, MaxOps) is
// reached, and Duration or Ops, if set, is the least it runs.
type Phase struct {
	Duration Duration `yaml:"duration" json:"duration,omitempty"`
	Ops      int64    `yaml:"ops" json:"ops,omitempty"`
	// Until ends the phase when it holds (see Until); nil: at Duration or
	// Ops.
	Until *Until `yaml:"until" json:"until,omitempty"`
	// MaxDuration and MaxOps cap a phase with Until; one is required.
	MaxDuration Duration `yaml:"max_duration" json:"max_duration,omitempty"`
	MaxOps      int64    `yaml:"max_ops" json:"max_ops,omitempty"`
}

// Load is the load model.
type Load struct {
	// Mode is "closed" (connections x depth, each issuing as soon as the last
	// completes) or "open" (a target rate; latency measured from each
	// operation's intended start, correcting coordinated omission).
	Mode string `yaml:"mode" json:"mode"`
	// Connections is the number of client connections.
	Connections int `yaml:"connections" json:"connections"`
	// Depth is operations in flight per connection.
	Depth int `yaml:"depth" json:"depth"`
	// Rate is the open-loop target in ops/s over all connections.
	Rate float64 `yaml:"rate" json:"rate,omitempty"`
	// Ramp, if set, steps an open-loop rate from Start to End by Step, each
	// step lasting StepDuration; the measure phase is the whole ramp.
	Ramp *Ramp `yaml:"ramp" json:"ramp,omitempty"`
	// Pacing is how an open loop waits for each operation's intended start:
	// "precise" (one dispatcher sleeps until shortly before it, then spins,
	// so operations go out within microseconds, at the cost of up to one
	// core spinning) or "coarse" (each worker waits on a runtime timer: no
	// spinning, but on Linux up to about 1 ms late, which the latency
	// includes). Open loop only.
	Pacing string `yaml:"pacing" json:"pacing,omitempty"`
}

// Ramp is an open-loop rate schedule.
type Ramp struct {
	Start        float64  `yaml:"start" json:"start"`
	End          float64  `yaml:"end" json:"end"`
	Step         float64  `yaml:"step" json:"step"`
	StepDuration Duration `yaml:"step_duration" json:"step_duration"`
}
