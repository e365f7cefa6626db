package bench

import (
	"runtime"

	"github.com/kvbench/kvbench/internal/results"
)

// hostPhase is the host as sampled just before and just after a measure
// phase (results.ReadHostSample), shared by every Measurement of the
// phase, from which its cells' host checks are made.
type hostPhase struct {
	before, after results.HostSample
	cpus          int // the CPUs this process may run on
}

// readHost samples the host under the run's root ("/" outside tests).
func (r *runner) readHost() results.HostSample {
	root := r.cfg.hostRoot
	if root == "" {
		root = "/"
	}
	return results.ReadHostSample(root)
}

func attachHost(ms []Measurement, before, after results.HostSample) {
	h := &hostPhase{before: before, after: after, cpus: runtime.NumCPU()}
	for i := range ms {
		ms[i].Host = h
	}
}

// checks are the host checks of m's cell. The CPUs the run keeps busy
// are its CPU time over the phase's wall time; without a CPU reading,
// its workers, at most one CPU each, bound them.
func (h *hostPhase) checks(m *Measurement) []results.Check {
	if h == nil {
		return nil
	}
	used := float64(min(m.Load.Connections*max(m.Load.Depth, 1), h.cpus))
	if m.CPU != nil && m.Duration > 0 {
		used = float64(m.CPU.Client.User+m.CPU.Client.Sys) / float64(m.Duration)
	}
	return results.HostChecks(h.before, h.after, used, h.cpus)
}
