package workload

import (
	"strings"
	"time"
)

// Overrides are the command-line flags a user actually set; nil fields
// leave the workload alone. They apply after the file, so the precedence
// is defaults, then YAML, then flags. Problems they cause are reported as
// "flag --name: field: message" by the following Validate.
type Overrides struct {
	Server      *string        // --server: target.server
	Transport   *string        // --transport: target.transport
	Poll        *string        // --poll: target.poll
	AuthFile    *string        // --auth-file: target.auth_file
	Warmup      *time.Duration // --warmup: phases.warmup becomes {duration: D} (ops cleared; 0: none)
	Measure     *time.Duration // --duration: phases.measure becomes {duration: D} (ops cleared)
	Connections *int           // --connections: load.connections
	Depth       *int           // --depth: load.depth
	Order       *string        // --order: order
	// Rate (--rate) makes the run open loop at this rate: load.mode becomes
	// "open", load.rate the value and any load.ramp is dropped; load.pacing,
	// unless the file set it, becomes the default.
	Rate   *float64
	Seed   *uint64 // --seed: seed
	Verify *bool   // --verify: verify
	// OpPhases (--phases) is op_phases.
	OpPhases *bool
}

// ApplyOverrides sets each non-nil override on w and records the flag as
// the field's origin. Call Validate afterwards.
func (w *Workload) ApplyOverrides(o Overrides) {
	if w.src == nil {
		w.src = newSource("")
	}
	mark := func(flag string, paths ...string) {
		for _, p := range paths {
			w.src.locs[p] = loc{flag: flag}
			delete(w.src.bad, p)
		}
	}
	if o.Server != nil {
		w.Target.Server = *o.Server
		mark("--server", "target.server")
	}
	if o.Transport != nil {
		w.Target.Transport = *o.Transport
		mark("--transport", "target.transport")
	}
	if o.Poll != nil {
		w.Target.Poll = *o.Poll
		mark("--poll", "target.poll")
	}
	if o.AuthFile != nil {
		w.Target.AuthFile = *o.AuthFile
		mark("--auth-file", "target.auth_file")
	}
	if o.Warmup != nil {
		w.Phases.Warmup = Phase{Duration: Duration(*o.Warmup)}
		mark("--warmup", "phases.warmup", "phases.warmup.duration")
		delete(w.src.locs, "phases.warmup.ops")
	}
	if o.Measure != nil {
		w.Phases.Measure = Phase{Duration: Duration(*o.Measure)}
		mark("--duration", "phases.measure", "phases.measure.duration")
		delete(w.src.locs, "phases.measure.ops")
	}
	if o.Connections != nil {
		w.Load.Connections = *o.Connections
		mark("--connections", "load.connections")
	}
	if o.Depth != nil {
		w.Load.Depth = *o.Depth
		mark("--depth", "load.depth")
	}
	if o.Order != nil {
		w.Order = *o.Order
		mark("--order", "order")
	}
	if o.Rate != nil {
		w.Load.Mode = "open"
		w.Load.Rate = *o.Rate
		w.Load.Ramp = nil
		for p := range w.src.locs {
			if strings.HasPrefix(p, "load.ramp") {
				delete(w.src.locs, p)
			}
		}
		mark("--rate", "load.mode", "load.rate")
		if !w.src.has("load.pacing") {
			// The file may have been a closed loop, which gets no pacing default.
			w.Load.Pacing = DefaultPacing
		}
		if !w.src.has("phases.measure") {
			// The ramp had stood in for the measure phase.
			w.Phases.Measure = Phase{Duration: Duration(DefaultMeasure)}
		}
	}
	if o.Seed != nil {
		w.Seed = *o.Seed
		mark("--seed", "seed")
	}
	if o.Verify != nil {
		w.Verify = *o.Verify
		mark("--verify", "verify")
	}
	if o.OpPhases != nil {
		w.OpPhases = *o.OpPhases
		mark("--phases", "op_phases")
	}
}
