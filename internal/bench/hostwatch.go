package bench

import (
	"runtime"
	"time"

	"github.com/kvbench/kvbench/internal/results"
)

// hostPhase is the host as sampled just before and just after a measure
// phase (results.ReadHostSample), shared by every Measurement of the
// phase, from which its cells' host checks are made.
type hostPhase struct {
	before, after results.HostSample
	cpus          int // the CPUs this process may run on
}

// readHost samples the host under the run's root ("/" outside tests),
// stamped on the run's clock.
func (r *runner) readHost() results.HostSample {
	root := r.cfg.hostRoot
	if root == "" {
		root = "/"
	}
	clock := r.cfg.clock
	if clock == nil {
		clock = nanotime
	}
	s := results.ReadHostSample(root)
	s.AtNs = clock()
	return s
}

func attachHost(ms []Measurement, before, after results.HostSample) {
	h := &hostPhase{before: before, after: after, cpus: runtime.NumCPU()}
	for i := range ms {
		ms[i].Host = h
	}
}

// checks are the host checks of m's cell. An external server's CPU time
// over the phase, when it reported it, is the run's, not another
// program's; an embedded server's is already this process's.
func (h *hostPhase) checks(m *Measurement) []results.Check {
	if h == nil {
		return nil
	}
	var server time.Duration
	if m.CPU != nil && m.CPU.Server != nil {
		server = m.CPU.Server.User + m.CPU.Server.Sys
	}
	return results.HostChecks(h.before, h.after, server, h.cpus)
}
