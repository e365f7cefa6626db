package workload

import (
	"fmt"
	"strings"
	"time"

	"github.com/kvbench/kvbench/internal/store"
	"github.com/kvbench/kvbench/rdmakv"
)

// An Override is a setting of the workload that a command-line flag
// replaces. Overrides apply after the file, so the precedence is
// defaults, then YAML, then flags; problems they cause are reported as
// "flag --name: field: message" by the following Validate.
type Override struct {
	// Flag is the flag's name, without dashes.
	Flag string
	// Help is the flag's help; a command may say it its own way.
	Help string
	// Load marks the flags of the load model, the checking, the cell
	// order and the kind of store: kvbench run has them as they are; tune
	// takes its loads as lists and runs its own measurements, unchecked,
	// in its own order, against rdmakv alone.
	Load bool
	// Choices, when the flag takes one of a few words, are those words.
	Choices []string
	set     setter
}

// Zero is the zero value of the flag's type (string, int, uint64,
// float64, bool or time.Duration), which is also its default: a flag
// left alone overrides nothing.
func (o Override) Zero() any { return o.set.zero }

// setter is how an override changes the workload.
type setter struct {
	zero  any
	apply func(w *Workload, flag string, v any)
}

type flagValue interface {
	string | int | uint64 | float64 | bool | time.Duration
}

// sets is the setter that changes the fields at paths by set; the flag
// then stands as their origin.
func sets[T flagValue](set func(w *Workload, v T), paths ...string) setter {
	var zero T
	return setter{zero: zero, apply: func(w *Workload, flag string, v any) {
		set(w, v.(T))
		for _, p := range paths {
			w.src.locs[p] = loc{flag: "--" + flag}
			delete(w.src.bad, p)
		}
	}}
}

// Overrides are the flags a user actually set, by Override.Flag, each
// with its value, of the type of the Override's Zero.
type Overrides map[string]any

// OverrideFlags are the workload's settings that flags override, in the
// order they apply. A function, as the kinds of store are known only once
// their drivers have registered.
func OverrideFlags() []Override {
	return []Override{
		{Flag: "kind", Help: "store to drive: " + strings.Join(store.Kinds(), ", ") + " (default: the workload's target.kind, else rdmakv)",
			Choices: store.Kinds(), Load: true, set: sets(func(w *Workload, v string) { w.Target.Kind = v }, "target.kind")},
		{Flag: "server", Help: "server host:port (default: the workload's target.server, else an embedded server)",
			set: sets(func(w *Workload, v string) { w.Target.Server = v }, "target.server")},
		{Flag: "transport", Help: "transport: " + strings.Join(rdmakv.Transports(), ", ") + " (default: the workload's target.transport)",
			Choices: rdmakv.Transports(),
			set:     sets(func(w *Workload, v string) { w.Target.Transport = v }, "target.transport")},
		{Flag: "poll", Help: "completion polling on verbs: busy or event (default: the workload's target.poll, else busy)", Choices: Polls,
			set: sets(func(w *Workload, v string) { w.Target.Poll = v }, "target.poll")},
		{Flag: "auth-file", Help: "file holding the server's shared secret (default: the workload's target.auth_file); an embedded server requires it",
			set: sets(func(w *Workload, v string) { w.Target.AuthFile = v }, "target.auth_file")},
		{Flag: "profile", Help: "apply a threshold profile (what kvbench tune writes, profile.json) in place of the workload's thresholds: one cell per (op, value size), labelled profile (default: the workload's target.profile)",
			Load: true, set: sets(func(w *Workload, v string) { w.Target.Profile = v }, "target.profile")},
		{Flag: "tos", Help: "IP type-of-service byte of rdmakv's traffic, DSCP << 2 | ECN: the RoCE traffic class on verbs (default: the workload's target.tos, else 0)",
			set: sets(func(w *Workload, v int) { w.Target.TOS = v }, "target.tos")},
		{Flag: "warmup", Help: "unrecorded warmup before each measure phase, replacing the workload's phases.warmup (0: none)",
			set: sets(func(w *Workload, v time.Duration) { w.Phases.Warmup = w.timedPhase("phases.warmup", v) },
				"phases.warmup", "phases.warmup.duration")},
		{Flag: "duration", Help: "measure phase length per cell, replacing the workload's phases.measure",
			set: sets(func(w *Workload, v time.Duration) { w.Phases.Measure = w.timedPhase("phases.measure", v) },
				"phases.measure", "phases.measure.duration")},
		{Flag: "connections", Help: "client connections (load.connections)", Load: true,
			set: sets(func(w *Workload, v int) { w.Load.Connections = v }, "load.connections")},
		{Flag: "depth", Help: "operations in flight per connection (load.depth)", Load: true,
			set: sets(func(w *Workload, v int) { w.Load.Depth = v }, "load.depth")},
		{Flag: "order", Help: "cell order: interleaved (each value size at every threshold in turn, fresh connections per cell) or thresholds (each threshold's sizes in a row on one set of connections) (default: the workload's order, else interleaved)",
			Load: true, Choices: Orders, set: sets(func(w *Workload, v string) { w.Order = v }, "order")},
		{Flag: "rate", Help: "run open loop at this many ops/s over all connections (load.rate)", Load: true,
			set: sets((*Workload).openAt, "load.mode", "load.rate")},
		{Flag: "seed", Help: "seed for every random choice; same seed, same operations",
			set: sets(func(w *Workload, v uint64) { w.Seed = v }, "seed")},
		{Flag: "verify", Help: "check every get against what was written (--verify=false turns it off)", Load: true,
			set: sets(func(w *Workload, v bool) { w.Verify = v }, "verify")},
		{Flag: "phases", Help: "record a histogram per phase of the operations: client, network, server and the rendezvous steps (op_phases)",
			set: sets(func(w *Workload, v bool) { w.OpPhases = v }, "op_phases")},
	}
}

// timedPhase is the phase at path becoming {duration: d}: the file's ops,
// until and caps for it no longer apply, as a flag the user set asks for
// a fixed length.
func (w *Workload) timedPhase(path string, d time.Duration) Phase {
	for p := range w.src.locs {
		if strings.HasPrefix(p, path+".") {
			delete(w.src.locs, p)
		}
	}
	return Phase{Duration: Duration(d)}
}

// openAt makes the run open loop at rate: any ramp is dropped and
// load.pacing, unless the file set it, becomes the default.
func (w *Workload) openAt(rate float64) {
	w.Load.Mode = "open"
	w.Load.Rate = rate
	w.Load.Ramp = nil
	for p := range w.src.locs {
		if strings.HasPrefix(p, "load.ramp") {
			delete(w.src.locs, p)
		}
	}
	if !w.src.has("load.pacing") {
		// The file may have been a closed loop, which gets no pacing default.
		w.Load.Pacing = DefaultPacing
	}
	if !w.src.has("phases.measure") {
		// The ramp had stood in for the measure phase.
		w.Phases.Measure = Phase{Duration: Duration(DefaultMeasure)}
	}
}

// ApplyOverrides sets each override on w and records the flag as the
// field's origin. Call Validate afterwards. A flag that is not in
// OverrideFlags, or a value not of its type, is a bug in the caller and
// panics.
func (w *Workload) ApplyOverrides(o Overrides) {
	if w.src == nil {
		w.src = newSource("")
	}
	seen := 0
	for _, f := range OverrideFlags() {
		if v, ok := o[f.Flag]; ok {
			f.set.apply(w, f.Flag, v)
			seen++
		}
	}
	if seen < len(o) {
		panic(fmt.Sprintf("workload: overrides %v name a flag that overrides nothing", o))
	}
}
